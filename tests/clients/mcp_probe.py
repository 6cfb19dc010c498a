"""One step against an MCP endpoint with the official MCP Python SDK client, printed as JSON.

Usage:
  mcp_probe.py list URL [TOKEN]                      -> {"tools": [{"name", "description"}]}
  mcp_probe.py call URL TOOL ARGS_JSON [TOKEN] [CONVERSATION]
                                                     -> {"is_error", "text", "kind", "error"}
  mcp_probe.py calls URL TOOL ARGS_JSON N [TOKEN]    -> {"kinds": {kind|"ok": count}}  (N at once)
TOKEN "-" means none. Tests read the JSON and decide; this script asserts nothing.
"""

import asyncio
import json
import sys

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

KIND_META = "switchboard/error"


def text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def outcome(result) -> dict:
    error = (result.meta or {}).get(KIND_META) or {}
    return {
        "is_error": bool(result.isError),
        "text": text(result),
        "kind": error.get("kind"),
        "error": error,
    }


async def session_for(url: str, token: str | None):
    headers = {"Authorization": f"Bearer {token}"} if token and token != "-" else {}
    client = httpx.AsyncClient(headers=headers, timeout=30)
    return client, streamable_http_client(url, http_client=client)


async def main() -> None:
    mode, url = sys.argv[1], sys.argv[2]
    rest = sys.argv[3:]
    token = None
    if mode == "list":
        token = rest[0] if rest else None
    elif mode == "call":
        token = rest[2] if len(rest) > 2 else None
    elif mode == "calls":
        token = rest[3] if len(rest) > 3 else None
    client, transport = await session_for(url, token)
    async with client, transport as (read, write, _), ClientSession(read, write) as session:
        await session.initialize()
        if mode == "list":
            tools = (await session.list_tools()).tools
            print(json.dumps({"tools": [{"name": t.name, "description": t.description} for t in tools]}))
        elif mode == "call":
            tool, args = rest[0], json.loads(rest[1])
            meta = {"switchboard/conversation_id": rest[3]} if len(rest) > 3 else None
            result = await session.call_tool(tool, args, meta=meta)
            print(json.dumps(outcome(result)))
        elif mode == "calls":
            tool, args, n = rest[0], json.loads(rest[1]), int(rest[2])
            results = await asyncio.gather(*(session.call_tool(tool, args) for _ in range(n)))
            kinds: dict[str, int] = {}
            for r in results:
                k = outcome(r)["kind"] or "ok"
                kinds[k] = kinds.get(k, 0) + 1
            print(json.dumps({"kinds": kinds}))
        else:
            raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    asyncio.run(main())

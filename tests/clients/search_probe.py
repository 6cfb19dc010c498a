"""Steps in one MCP session with the official MCP Python SDK client, printed as one JSON list.

Usage: search_probe.py URL TOKEN STEPS_JSON
  TOKEN "-" means none. A URL of the form stdio:["program", "arg", ...] runs that command and
  speaks MCP over its stdin and stdout instead. STEPS_JSON is a list of steps:
    {"op": "list"}                              -> {"tools": [names]}
    {"op": "call", "tool": T, "args": {...}}    -> {"is_error", "text", "kind", "structured"}
    {"op": "list_after_change"}                 -> {"tools": [names]} once the server sent
                                                   notifications/tools/list_changed since the
                                                   session began or the last such step (20 s at most)
    {"op": "search_until", "query": Q, "name": N}
                                                -> {"found": [names], "changes": n}: search_tools
                                                   for Q, and again after each
                                                   notifications/tools/list_changed, until N is
                                                   among the answers (20 s at most)
Tests read the JSON and decide; this script asserts nothing.
"""

import asyncio
import contextlib
import json
import os
import sys

import anyio
import httpx
import mcp.types as types
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

KIND_META = "switchboard/error"


async def main() -> None:
    url, token, steps = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    headers = {"Authorization": f"Bearer {token}"} if token != "-" else {}
    changed = anyio.Event()

    async def on_message(message) -> None:
        if isinstance(message, types.ServerNotification) and isinstance(
            message.root, types.ToolListChangedNotification
        ):
            changed.set()

    out = []
    async with contextlib.AsyncExitStack() as stack:
        if url.startswith("stdio:"):
            command = json.loads(url[len("stdio:"):])
            params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
            read, write = await stack.enter_async_context(stdio_client(params))
        else:
            client = await stack.enter_async_context(httpx.AsyncClient(headers=headers, timeout=30))
            read, write, _ = await stack.enter_async_context(streamable_http_client(url, http_client=client))
        session = await stack.enter_async_context(ClientSession(read, write, message_handler=on_message))
        await session.initialize()
        for step in steps:
            if step["op"] == "list":
                tools = (await session.list_tools()).tools
                out.append({"tools": [t.name for t in tools]})
            elif step["op"] == "call":
                result = await session.call_tool(step["tool"], step.get("args", {}))
                error = (result.meta or {}).get(KIND_META) or {}
                out.append({
                    "is_error": bool(result.isError),
                    "text": "".join(getattr(c, "text", "") for c in result.content),
                    "kind": error.get("kind"),
                    "structured": result.structuredContent,
                })
            elif step["op"] == "list_after_change":
                with anyio.fail_after(20):
                    await changed.wait()
                changed = anyio.Event()
                tools = (await session.list_tools()).tools
                out.append({"tools": [t.name for t in tools]})
            elif step["op"] == "search_until":
                changes, found = 0, []
                with anyio.move_on_after(20):
                    while True:
                        changed = anyio.Event()
                        result = await session.call_tool("search_tools", {"query": step["query"]})
                        found = [t["name"] for t in (result.structuredContent or {}).get("tools", [])]
                        if step["name"] in found:
                            break
                        await changed.wait()
                        changes += 1
                out.append({"found": found, "changes": changes})
            else:
                raise SystemExit(f"unknown op {step['op']}")
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())

"""Calls one tool through an MCP endpoint as an end user, with the official Python SDK (1.x
`ClientSession`), declaring URL-mode elicitation. When the gateway sends a consent link it is
printed at once as a JSON line {"elicited": {...}} (the test opens it in a browser), and the
callback answers ACTION. Then the call's outcome is printed as the last JSON line.

Usage: consent_probe.py URL TOKEN TOOL [ACTION] [MODE]
  TOKEN   the end user's access token (sent as a bearer token)
  ACTION  accept (default), decline or cancel
  MODE    session (default: SDK 1.x ClientSession, 2025-11-25) or auto (SDK 2.x Client, which
          negotiates 2026-07-28: the consent comes as an input round)
The script asserts nothing: the Rust test reads the JSON and decides.
"""

import asyncio
import json
import sys

import mcp.types as types
from mcp.client.streamable_http import streamable_http_client

seen: dict = {"elicited": [], "completed": [], "progress": []}


async def main() -> None:
    url, token, tool = sys.argv[1:4]
    action = sys.argv[4] if len(sys.argv) > 4 else "accept"
    mode = sys.argv[5] if len(sys.argv) > 5 else "session"

    async def elicit(context, params):
        entry = {"mode": getattr(params, "mode", None), "message": params.message}
        if entry["mode"] == "url":
            entry["url"] = params.url
            entry["id"] = getattr(params, "elicitationId", None) or getattr(params, "elicitation_id", None)
        seen["elicited"].append(entry)
        print(json.dumps({"elicited": entry}), flush=True)
        return types.ElicitResult(action=action)

    async def message(msg):
        root = getattr(msg, "root", msg)
        if type(root).__name__ == "ElicitCompleteNotification":
            seen["completed"].append(root.params.elicitationId)

    async def progress(value, total, text):
        seen["progress"].append({"progress": value, "total": total, "message": text})

    headers = {"Authorization": f"Bearer {token}"}
    out: dict = {}
    if mode == "auto":
        import httpx2
        from mcp.client.client import Client

        http = httpx2.AsyncClient(headers=headers, timeout=None)
        transport = streamable_http_client(url, http_client=http)
        async with http, Client(transport, mode="auto", elicitation_callback=elicit) as client:
            out["protocol"] = client.protocol_version
            await call(client.call_tool, tool, out)
    else:
        import httpx
        from mcp import ClientSession

        http = httpx.AsyncClient(headers=headers, timeout=None)
        async with http, streamable_http_client(url, http_client=http) as streams, ClientSession(
            streams[0], streams[1], elicitation_callback=elicit, message_handler=message
        ) as session:
            await session.initialize()
            await call(lambda name, args: session.call_tool(name, args, progress_callback=progress), tool, out)
    out.update(seen)
    print(json.dumps(out), flush=True)


async def call(call_tool, tool: str, out: dict) -> None:
    try:
        result = await call_tool(tool, {})
        out["error"] = getattr(result, "isError", None) or getattr(result, "is_error", None) or False
        out["text"] = "".join(getattr(c, "text", "") for c in result.content)
    except Exception as e:  # the SDK's JSON-RPC error (its class differs between 1.x and 2.x)
        error = getattr(e, "error", None)
        out["rpc_error"] = {"code": getattr(error, "code", None), "message": str(e),
                            "data": getattr(error, "data", None)}


asyncio.run(main())

"""Calls one tool through an MCP endpoint as an end user, with the official Python SDK (1.x
`ClientSession`), declaring URL-mode elicitation. When the gateway sends a consent link it is
printed at once as a JSON line {"elicited": {...}} (the test opens it in a browser), and the
callback answers ACTION. Then the call's outcome is printed as the last JSON line.

Usage: consent_probe.py URL TOKEN TOOL [ACTION]
  TOKEN   the end user's access token (sent as a bearer token)
  ACTION  accept (default), decline or cancel
The script asserts nothing: the Rust test reads the JSON and decides.
"""

import asyncio
import json
import sys

import httpx
import mcp.types as types
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError

seen: dict = {"elicited": [], "completed": [], "progress": []}


async def main() -> None:
    url, token, tool = sys.argv[1:4]
    action = sys.argv[4] if len(sys.argv) > 4 else "accept"

    async def elicit(context, params):
        entry = {"mode": getattr(params, "mode", None), "message": params.message}
        if entry["mode"] == "url":
            entry["url"] = params.url
            entry["id"] = params.elicitationId
        seen["elicited"].append(entry)
        print(json.dumps({"elicited": entry}), flush=True)
        return types.ElicitResult(action=action)

    async def message(msg):
        root = getattr(msg, "root", msg)
        if type(root).__name__ == "ElicitCompleteNotification":
            seen["completed"].append(root.params.elicitationId)

    async def progress(value, total, text):
        seen["progress"].append({"progress": value, "total": total, "message": text})

    client = httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=None)
    out: dict = {}
    async with client, streamable_http_client(url, http_client=client) as streams, ClientSession(
        streams[0], streams[1], elicitation_callback=elicit, message_handler=message
    ) as session:
        await session.initialize()
        try:
            result = await session.call_tool(tool, {}, progress_callback=progress)
            out["error"] = result.isError
            out["text"] = "".join(getattr(c, "text", "") for c in result.content)
        except McpError as e:
            out["rpc_error"] = {"code": e.error.code, "message": e.error.message, "data": e.error.data}
    out.update(seen)
    print(json.dumps(out), flush=True)


asyncio.run(main())

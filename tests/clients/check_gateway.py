"""Drives Switchboard's aggregated endpoint with the official MCP Python SDK client.

Usage: check_gateway.py http URL | check_gateway.py stdio SWITCHBOARD_BINARY CONFIG
Expects the upstreams `everything` (server-everything), `time` (mcp-server-time) and `fx` (our
misbehaving fixture with a short timeout). Exits 0 and prints "ok" when every check passed.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

KIND_META = "switchboard/error"


def text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def kind(result) -> str | None:
    meta = result.meta or {}
    return (meta.get(KIND_META) or {}).get("kind")


async def check(session: ClientSession) -> None:
    await session.initialize()

    tools = {t.name for t in (await session.list_tools()).tools}
    for expected in ["everything__get-sum", "everything__echo", "time__get_current_time", "fx__echo", "fx__hang"]:
        assert expected in tools, f"{expected} missing from {sorted(tools)}"
    assert not any(" " in t or "!" in t for t in tools), tools

    r = await session.call_tool("everything__get-sum", {"a": 2, "b": 40})
    assert not r.isError and "42" in text(r), r
    r = await session.call_tool("time__get_current_time", {"timezone": "UTC"})
    assert not r.isError and "UTC" in text(r), r
    r = await session.call_tool("fx__echo", {"text": "through the gateway"})
    assert text(r) == "through the gateway", r

    r = await session.call_tool("fx__meta", {}, meta={"bound_end_user_id": "end-user-9"})
    assert json.loads(text(r)).get("bound_end_user_id") == "end-user-9", text(r)

    resources = (await session.list_resources()).resources
    everything_resources = [r for r in resources if str(r.uri).startswith("demo://")]
    assert everything_resources, [str(r.uri) for r in resources]
    read = await session.read_resource(everything_resources[0].uri)
    assert read.contents, read
    fixture_resource = [r for r in resources if "shared.txt" in str(r.uri)]
    assert fixture_resource, [str(r.uri) for r in resources]
    read = await session.read_resource(fixture_resource[0].uri)
    assert "fixture resource file:///shared.txt" in read.contents[0].text, read

    templates = (await session.list_resource_templates()).resourceTemplates
    assert templates, "server-everything offers resource templates"

    prompts = (await session.list_prompts()).prompts
    simple = [p for p in prompts if p.name.startswith("everything__") and not any(a.required for a in (p.arguments or []))]
    assert simple, [p.name for p in prompts]
    got = await session.get_prompt(simple[0].name)
    assert got.messages, got

    updates = []

    async def on_progress(progress, total, message):
        updates.append((progress, total))

    r = await session.call_tool(
        "everything__trigger-long-running-operation", {"duration": 1, "steps": 3}, progress_callback=on_progress
    )
    assert not r.isError, r
    assert len(updates) >= 2, updates

    r = await session.call_tool("fx__hang", {})
    assert r.isError and kind(r) == "timeout", (r.isError, r.meta, text(r))
    r = await session.call_tool("fx__cancelled", {"count": 1})
    assert len(json.loads(text(r))) == 1, text(r)

    r = await session.call_tool("no_such_tool", {})
    assert r.isError and kind(r) == "tool_not_found", r


async def main() -> None:
    mode = sys.argv[1]
    if mode == "http":
        async with streamable_http_client(sys.argv[2]) as (read, write, _):
            async with ClientSession(read, write) as session:
                await check(session)
    elif mode == "stdio":
        # The SDK passes only a few variables to the child by default; Switchboard's own
        # (SWITCHBOARD_DATA and friends) must reach it.
        params = StdioServerParameters(command=sys.argv[2], args=["stdio", "-c", sys.argv[3]], env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await check(session)
    else:
        raise SystemExit(f"unknown mode {mode}")
    print("ok")


if __name__ == "__main__":
    asyncio.run(main())

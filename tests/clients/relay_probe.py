"""Drives tests/fixtures/relay_server.py's tools through an MCP endpoint with the official Python
SDK (1.x `ClientSession`, or 2.x `Client` in its default or legacy mode), answering the
upstream's sampling, elicitation and roots requests, and prints what it saw as JSON.

Usage: relay_probe.py http URL PREFIX [MODE] [ANSWER]
       relay_probe.py stdio PREFIX MODE ANSWER -- COMMAND ARG...
  PREFIX  what the gateway puts before each fixture tool name (e.g. `relay__`, or `-`)
  MODE    `session` (SDK 1.x ClientSession), `auto` or `legacy` (SDK 2.x Client)
  ANSWER  the name this client gives when elicited (default Grace)
The script asserts nothing: the Rust test reads the JSON and decides.
"""

import asyncio
import json
import sys

import mcp.types as types

def attr(obj, camel: str, snake: str):
    """A field under its SDK 1.x (camelCase) or 2.x (snake_case) name."""
    value = getattr(obj, camel, None)
    return value if value is not None else getattr(obj, snake, None)


seen: dict = {"elicit": [], "sampling": [], "roots_asked": 0, "logs": [], "progress": []}


def make_callbacks(answer: str):
    async def elicit(context, params):
        mode = getattr(params, "mode", None) or "form"
        entry = {"message": params.message, "mode": mode}
        if mode == "url":
            entry["url"] = params.url
            seen["elicit"].append(entry)
            return types.ElicitResult(action="accept")
        props = attr(params, "requestedSchema", "requested_schema").get("properties", {})
        entry["defaults"] = {k: v.get("default") for k, v in props.items()}
        entry["enums"] = {k: v.get("enum") for k, v in props.items() if v.get("enum")}
        seen["elicit"].append(entry)
        return types.ElicitResult(action="accept", content={"name": answer, "color": "blue"})

    async def sample(context, params):
        first = params.messages[0].content
        seen["sampling"].append(getattr(first, "text", str(first)))
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=f"summary by {answer}"),
            model="probe-model",
        )

    async def roots(context):
        seen["roots_asked"] += 1
        return types.ListRootsResult(roots=[types.Root(uri="file:///probe/root", name="probe")])

    async def log(params):
        seen["logs"].append({"level": params.level, "data": params.data})
        log_arrived.set()

    return elicit, sample, roots, log


log_arrived = asyncio.Event()


async def logs_reach(count: int) -> None:
    """Waits (at most 5 s) until `count` log lines arrived: over Streamable HTTP they travel
    on the session's own GET stream, which may deliver them after the call's result."""
    async def enough() -> None:
        while len(seen["logs"]) < count:
            log_arrived.clear()
            await log_arrived.wait()

    try:
        await asyncio.wait_for(enough(), 5)
    except asyncio.TimeoutError:
        pass


def text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def progress(value, total, message):
    seen["progress"].append(value)


async def levels_and_completions(session, prefix: str, out: dict) -> None:
    """logging/setLevel to warning, then chatty again; and a prompt argument completed."""
    try:
        await session.set_logging_level("warning")
        before = len(seen["logs"])
        await session.call_tool(prefix + "chatty", {"count": 4})
        await logs_reach(before + 2)
        out["logs_at_warning"] = seen["logs"][before:]
    except Exception as e:  # noqa: BLE001 - reported, the test decides
        out["logs_at_warning"] = f"error: {e}"
    try:
        ref = types.PromptReference(type="ref/prompt", name=prefix + "greet")
        done = await session.complete(ref, {"name": "name", "value": "A"})
        out["completion"] = done.completion.values
    except Exception as e:  # noqa: BLE001
        out["completion"] = f"error: {e}"


async def scenario(call, list_tools, prefix: str) -> dict:
    out: dict = {}
    out["tools"] = sorted(t.name for t in (await list_tools()).tools)
    out["ask_name"] = text(await call(prefix + "ask_name", {}))
    out["ask_url"] = text(await call(prefix + "ask_url", {}))
    out["summarize"] = text(await call(prefix + "summarize", {"text": "a long text"}))
    out["show_roots"] = text(await call(prefix + "show_roots", {}))
    out["chatty"] = text(await call(prefix + "chatty", {"count": 3}, progress_callback=progress))
    await logs_reach(3)
    rich = await call(prefix + "rich", {})
    out["rich"] = {
        "types": [c.type for c in rich.content],
        "structured": attr(rich, "structuredContent", "structured_content"),
        "meta": (rich.meta or {}).get("fixture/trace"),
        "annotations": [getattr(getattr(c, "annotations", None), "priority", None) for c in rich.content],
    }
    return out


async def run_session(transport, prefix: str, answer: str) -> dict:
    from mcp import ClientSession

    elicit, sample, roots, log = make_callbacks(answer)
    async with transport as streams, ClientSession(
        streams[0],
        streams[1],
        sampling_callback=sample,
        elicitation_callback=elicit,
        list_roots_callback=roots,
        logging_callback=log,
    ) as session:
        init = await session.initialize()
        out = await scenario(session.call_tool, session.list_tools, prefix)
        out["protocol"] = attr(init, "protocolVersion", "protocol_version")
        await levels_and_completions(session, prefix, out)
        return out


async def run_client(server, mode: str, prefix: str, answer: str) -> dict:
    from mcp.client.client import Client

    elicit, sample, roots, log = make_callbacks(answer)
    async with Client(
        server,
        mode=mode,
        sampling_callback=sample,
        elicitation_callback=elicit,
        list_roots_callback=roots,
        logging_callback=log,
    ) as client:
        out = await scenario(client.call_tool, client.list_tools, prefix)
        out["protocol"] = client.protocol_version
        await levels_and_completions(client, prefix, out)
        return out


async def main() -> None:
    kind = sys.argv[1]
    if kind == "http":
        url, prefix = sys.argv[2], sys.argv[3]
        mode = sys.argv[4] if len(sys.argv) > 4 else "session"
        answer = sys.argv[5] if len(sys.argv) > 5 else "Grace"
    else:
        prefix, mode, answer = sys.argv[2], sys.argv[3], sys.argv[4]
        command = sys.argv[sys.argv.index("--") + 1 :]
    prefix = "" if prefix == "-" else prefix
    if mode == "session":
        if kind == "http":
            from mcp.client.streamable_http import streamable_http_client

            transport = streamable_http_client(url)
        else:
            from mcp.client.stdio import StdioServerParameters, stdio_client

            transport = stdio_client(StdioServerParameters(command=command[0], args=command[1:]))
        out = await run_session(transport, prefix, answer)
    else:
        if kind == "http":
            server = url
        else:
            from mcp.client.stdio import StdioServerParameters

            server = StdioServerParameters(command=command[0], args=command[1:])
        out = await run_client(server, mode, prefix, answer)
    out.update(seen)
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())

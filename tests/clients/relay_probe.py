"""Drives tests/fixtures/relay_server.py's tools through an MCP endpoint with the official Python
SDK (1.x `ClientSession`, or 2.x `Client` in its default or legacy mode), answering the
upstream's sampling, elicitation and roots requests, and prints what it saw as JSON.

Usage: relay_probe.py http URL PREFIX [MODE] [ANSWER]
       relay_probe.py stdio PREFIX MODE ANSWER -- COMMAND ARG...
       relay_probe.py call URL TOOL MODE ANSWER   (one tool only: its text and what was asked)
       relay_probe.py call-stdio TOOL MODE ANSWER -- COMMAND ARG...   (the same over stdio)
       relay_probe.py lists URL | lists-stdio -- COMMAND ARG...   (the lists' ttlMs and
                                                                    cacheScope, SDK 2.x)
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

    async def message(msg):
        params = getattr(getattr(msg, "root", msg), "params", None)
        if type(getattr(msg, "root", msg)).__name__ == "ResourceUpdatedNotification":
            seen_updates.append(str(params.uri))
            update_arrived.set()

    async def log(params):
        seen["logs"].append({"level": params.level, "data": params.data})

    return dict(
        sampling_callback=sample,
        elicitation_callback=elicit,
        list_roots_callback=roots,
        logging_callback=log,
        message_handler=message,
    )


update_arrived = asyncio.Event()
seen_updates: list[str] = []


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
        # Read as the result arrives: log lines come before it, on the call's own stream.
        out["logs_at_warning"] = seen["logs"][before:]
    except Exception as e:  # noqa: BLE001 - reported, the test decides
        out["logs_at_warning"] = f"error: {e}"
    try:
        ref = types.PromptReference(type="ref/prompt", name=prefix + "greet")
        done = await session.complete(ref, {"name": "name", "value": "A"})
        out["completion"] = done.completion.values
    except Exception as e:  # noqa: BLE001
        out["completion"] = f"error: {e}"


def counter_uri(uris: list[str], prefix: str) -> str:
    """relay://counter as the gateway exposes it for the server PREFIX names: prefixed with
    `switchboard://SERVER/` when several servers offer it."""
    prefixed = f"switchboard://{prefix.rstrip('_')}/relay://counter"
    return prefixed if prefixed in uris else "relay://counter"


async def upstream_subscriptions(call, prefix: str, want: str) -> str:
    """The fixture's subscriptions, asked until they read `want` (at most 5 s: a 2026-07-28
    listen stream is acknowledged before the upstream subscription is made, and ending it
    unsubscribes upstream after the stream closes)."""
    for _ in range(50):
        now = text(await call(prefix + "subscriptions", {}))
        if now == want:
            break
        await asyncio.sleep(0.1)
    return now


async def watch_session(session, prefix: str, out: dict) -> None:
    """resources/subscribe, an update under the exposed URI, resources/unsubscribe."""
    try:
        uris = [str(r.uri) for r in (await session.list_resources()).resources]
        uri = counter_uri(uris, prefix)
        await session.subscribe_resource(uri)
        out["subscribed_upstream"] = text(await session.call_tool(prefix + "subscriptions", {}))
        await session.call_tool(prefix + "bump", {})
        await asyncio.wait_for(update_arrived.wait(), 5)
        out["updated"] = [u == uri for u in seen_updates]
        await session.unsubscribe_resource(uri)
        out["unsubscribed_upstream"] = text(await session.call_tool(prefix + "subscriptions", {}))
    except Exception as e:  # noqa: BLE001 - reported, the test decides
        out["updated"] = f"error: {e!r}"


async def watch_listen(client, prefix: str, out: dict) -> None:
    """2026-07-28: a subscriptions/listen stream naming the resource; its update; closing the
    stream ends the upstream subscription."""
    try:
        uris = [str(r.uri) for r in (await client.list_resources()).resources]
        uri = counter_uri(uris, prefix)
        async with client.listen(resource_subscriptions=[uri]) as sub:
            # The stream is acknowledged before the gateway's upstream subscription is made.
            out["subscribed_upstream"] = await upstream_subscriptions(
                client.call_tool, prefix, "relay://counter"
            )
            await client.call_tool(prefix + "bump", {})
            event = await asyncio.wait_for(sub.__anext__(), 5)
            out["updated"] = [getattr(event, "uri", None) == uri]
        out["unsubscribed_upstream"] = await upstream_subscriptions(client.call_tool, prefix, "")
    except Exception as e:  # noqa: BLE001
        out["updated"] = f"error: {e!r}"


async def scenario(call, list_tools, prefix: str) -> dict:
    out: dict = {}
    out["tools"] = sorted(t.name for t in (await list_tools()).tools)
    out["ask_name"] = text(await call(prefix + "ask_name", {}))
    out["ask_url"] = text(await call(prefix + "ask_url", {}))
    out["summarize"] = text(await call(prefix + "summarize", {"text": "a long text"}))
    out["show_roots"] = text(await call(prefix + "show_roots", {}))
    out["chatty"] = text(await call(prefix + "chatty", {"count": 3}, progress_callback=progress))
    # Log lines the upstream wrote before its result arrive before it.
    out["logs_at_result"] = len(seen["logs"])
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

    async with transport as streams, ClientSession(
        streams[0], streams[1], **make_callbacks(answer)
    ) as session:
        init = await session.initialize()
        out = await scenario(session.call_tool, session.list_tools, prefix)
        out["protocol"] = attr(init, "protocolVersion", "protocol_version")
        await levels_and_completions(session, prefix, out)
        await watch_session(session, prefix, out)
        return out


async def run_client(server, mode: str, prefix: str, answer: str) -> dict:
    from mcp.client.client import Client

    async with Client(server, mode=mode, **make_callbacks(answer)) as client:
        out = await scenario(client.call_tool, client.list_tools, prefix)
        out["protocol"] = client.protocol_version
        await levels_and_completions(client, prefix, out)
        if out["protocol"] == "2026-07-28":
            await watch_listen(client, prefix, out)
        else:
            await watch_session(client, prefix, out)
        return out


async def call_one(server, tool: str, mode: str, answer: str) -> dict:
    """One call of `tool` on `server`: a URL (Streamable HTTP) or StdioServerParameters."""
    callbacks = make_callbacks(answer)
    if mode == "session":
        from mcp import ClientSession

        if isinstance(server, str):
            from mcp.client.streamable_http import streamable_http_client

            transport = streamable_http_client(server)
        else:
            from mcp.client.stdio import stdio_client

            transport = stdio_client(server)
        async with transport as streams, ClientSession(
            streams[0], streams[1], **callbacks
        ) as session:
            await session.initialize()
            return {"text": text(await session.call_tool(tool, {}))}
    from mcp.client.client import Client

    async with Client(server, mode=mode, **callbacks) as client:
        return {"text": text(await client.call_tool(tool, {}))}


async def lists(server) -> dict:
    """Each list's caching hints as a 2026-07-28 client reads them."""
    from mcp.client.client import Client

    async with Client(server, mode="auto") as client:
        out: dict = {"protocol": client.protocol_version}
        for name, fetch in [
            ("tools", client.list_tools),
            ("prompts", client.list_prompts),
            ("resources", client.list_resources),
        ]:
            result = await fetch()
            out[name] = {"ttl_ms": result.ttl_ms, "cache_scope": result.cache_scope}
            if name == "resources" and result.resources:
                read = await client.read_resource(result.resources[0].uri)
                out["read"] = {"ttl_ms": read.ttl_ms, "cache_scope": read.cache_scope}
        return out


async def main() -> None:
    kind = sys.argv[1]
    if kind in ("lists", "lists-stdio"):
        if kind == "lists":
            server = sys.argv[2]
        else:
            from mcp.client.stdio import StdioServerParameters

            command = sys.argv[sys.argv.index("--") + 1 :]
            server = StdioServerParameters(command=command[0], args=command[1:])
        print(json.dumps(await lists(server)))
        return
    if kind in ("call", "call-stdio"):
        if kind == "call":
            out = await call_one(*sys.argv[2:6])
        else:
            from mcp.client.stdio import StdioServerParameters

            command = sys.argv[sys.argv.index("--") + 1 :]
            server = StdioServerParameters(command=command[0], args=command[1:])
            out = await call_one(server, *sys.argv[2:5])
        out.update(seen)
        print(json.dumps(out))
        return
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

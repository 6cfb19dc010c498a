"""Times N elicitation round trips (the fixture's ask_name: the tool asks, this client answers,
the tool returns) with the official Python SDK 1.x client; prints the median and p90 in µs.

Usage: relay_bench.py URL TOOL N
"""

import asyncio
import json
import statistics
import sys
import time

import mcp.types as types
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def elicit(context, params):
    return types.ElicitResult(action="accept", content={"name": "Bench", "color": "red"})


async def main() -> None:
    url, tool, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    async with streamable_http_client(url) as (read, write, _), ClientSession(
        read, write, elicitation_callback=elicit
    ) as session:
        await session.initialize()
        for _ in range(5):  # warm up
            await session.call_tool(tool, {})
        times = []
        for _ in range(n):
            start = time.perf_counter()
            result = await session.call_tool(tool, {})
            times.append((time.perf_counter() - start) * 1e6)
            assert "hello Bench" in result.content[0].text, result
    times.sort()
    print(json.dumps({"tool": tool, "n": n, "p50_us": round(statistics.median(times)),
                      "p90_us": round(times[int(n * 0.9)])}))


if __name__ == "__main__":
    asyncio.run(main())

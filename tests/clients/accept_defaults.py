"""An MCP host stand-in for the conformance client suite: the official Python SDK 1.x client
in front of a command that speaks MCP over stdio (`switchboard stdio`), calling one tool and
answering any elicitation the way a person accepting the form as offered would: every field
at its default.

Usage: accept_defaults.py TOOL ARGS_JSON -- COMMAND ARG...
Prints the tool's text; exits 1 when the call failed.
"""

import asyncio
import json
import sys

import mcp.types as types
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


async def accept_as_offered(context, params) -> types.ElicitResult:
    props = (params.requestedSchema or {}).get("properties", {})
    content = {name: spec["default"] for name, spec in props.items() if "default" in spec}
    return types.ElicitResult(action="accept", content=content)


async def main() -> int:
    tool, arguments = sys.argv[1], json.loads(sys.argv[2])
    command = sys.argv[sys.argv.index("--") + 1 :]
    server = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(server) as (read, write), ClientSession(
        read, write, elicitation_callback=accept_as_offered
    ) as session:
        await session.initialize()
        result = await session.call_tool(tool, arguments)
        print("".join(getattr(c, "text", "") for c in result.content))
        return 1 if result.isError else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

"""The official MCP Python SDK client with its OAuth client provider against a gateway that
accepts access tokens: it reads the gateway's Protected Resource Metadata, registers with the
provider (dynamic client registration), runs authorization code + PKCE (the provider's login
and consent forms answered over HTTP, no browser), then lists and calls tools with the token.

Usage: oauth_probe.py MCP_URL LOGIN [TOOL [ARGS_JSON [META_JSON]]]
Prints {"tools", "call", "access_token", "id_token"} as JSON (the Rust test decides).
"""

import asyncio
import json
import re
import sys
from urllib.parse import parse_qs, urljoin, urlparse

import httpx
from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

REDIRECT = "http://127.0.0.1:9/callback"


class Memory(TokenStorage):
    def __init__(self):
        self.tokens = None
        self.client = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, info: OAuthClientInformationFull):
        self.client = info


async def sign_in(url: str, login: str) -> tuple[str, str | None]:
    """Follows the authorization URL through the provider's forms to the redirect."""
    async with httpx.AsyncClient(follow_redirects=False) as http:
        response = await http.get(url)
        for _ in range(20):
            if response.is_redirect:
                location = urljoin(str(response.url), response.headers["location"])
                if location.startswith(REDIRECT):
                    query = parse_qs(urlparse(location).query)
                    if "code" not in query:
                        raise RuntimeError(f"the provider refused: {query}")
                    return query["code"][0], query.get("state", [None])[0]
                response = await http.get(location)
                continue
            html = response.text
            action = re.search(r'action="([^"]+)"', html)
            prompt = re.search(r'name="prompt" value="(\w+)"', html)
            if not action or not prompt:
                raise RuntimeError(f"unexpected page {response.status_code}: {html[:500]}")
            form = {"prompt": prompt.group(1)}
            if form["prompt"] == "login":
                form.update(login=login, password="any")
            target = urljoin(str(response.url), action.group(1))
            response = await http.post(target, data=form)
    raise RuntimeError("too many steps")


async def main():
    url, login = sys.argv[1], sys.argv[2]
    tool = sys.argv[3] if len(sys.argv) > 3 else None
    arguments = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
    meta = json.loads(sys.argv[5]) if len(sys.argv) > 5 else None
    storage = Memory()
    pending = {}

    async def redirect(authorization_url: str):
        pending["answer"] = await sign_in(authorization_url, login)

    async def callback():
        return pending.pop("answer")

    auth = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="switchboard-test",
            redirect_uris=[REDIRECT],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=redirect,
        callback_handler=callback,
    )
    out = {}
    async with streamablehttp_client(url, auth=auth) as (read, write, _):
        async with ClientSession(read, write) as session:
            await session.initialize()
            out["tools"] = [t.name for t in (await session.list_tools()).tools]
            if tool:
                result = await session.call_tool(tool, arguments, meta=meta)
                out["call"] = {
                    "is_error": bool(result.isError),
                    "text": "".join(getattr(c, "text", "") for c in result.content),
                    "meta": result.meta,
                }
    out["access_token"] = storage.tokens.access_token
    out["id_token"] = getattr(storage.tokens, "id_token", None)
    print(json.dumps(out))


asyncio.run(main())

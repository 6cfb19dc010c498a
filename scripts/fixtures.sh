#!/usr/bin/env bash
# Installs the real MCP servers and clients the tests use into .fixtures/ (git-ignored).
# Idempotent: a second run with everything present does nothing but check.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
fx="$root/.fixtures"
mkdir -p "$fx"

if [ ! -x "$fx/venv/bin/python" ]; then
  python3 -m venv "$fx/venv"
fi
if ! "$fx/venv/bin/python" -c 'import mcp, mcp_server_time' 2>/dev/null; then
  "$fx/venv/bin/pip" install --quiet --disable-pip-version-check "mcp==1.*" "mcp-server-time"
fi

# The Python SDK's 2.x client (its default mode speaks the stateless 2026-07-28 revision).
if [ ! -x "$fx/venv2/bin/python" ]; then
  python3 -m venv "$fx/venv2"
fi
if ! "$fx/venv2/bin/python" -c 'import mcp.client.client' 2>/dev/null; then
  "$fx/venv2/bin/pip" install --quiet --disable-pip-version-check "mcp==2.*"
fi
# mcp-server-git (PyPI; it needs the SDK 2.x), run in the sandbox on a repository the test makes.
if ! "$fx/venv2/bin/python" -c 'import mcp_server_git' 2>/dev/null; then
  "$fx/venv2/bin/pip" install --quiet --disable-pip-version-check "mcp==2.*" mcp-server-git
fi
# mcp-server-fetch (PyPI), sandboxed, reaching a loopback web server through the egress proxy.
if ! "$fx/venv2/bin/python" -c 'import mcp_server_fetch' 2>/dev/null; then
  "$fx/venv2/bin/pip" install --quiet --disable-pip-version-check "mcp==2.*" mcp-server-fetch
fi

if [ ! -f "$fx/node/node_modules/@modelcontextprotocol/server-everything/package.json" ]; then
  mkdir -p "$fx/node"
  (cd "$fx/node" && npm install --silent --no-audit --no-fund --prefix . @modelcontextprotocol/server-everything >/dev/null)
fi
# The TypeScript SDK itself (the conformance fixture server and the TypeScript client test).
if [ ! -f "$fx/node/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
  (cd "$fx/node" && npm install --silent --no-audit --no-fund --prefix . "@modelcontextprotocol/sdk@1" >/dev/null)
fi
# An MCP Apps server (the apps test's fixture): the official helpers on the TypeScript SDK v2.
if [ ! -f "$fx/node/node_modules/@modelcontextprotocol/ext-apps/package.json" ] \
  || [ ! -f "$fx/node/node_modules/@modelcontextprotocol/server/package.json" ]; then
  (cd "$fx/node" && npm install --silent --no-audit --no-fund --prefix . "@modelcontextprotocol/ext-apps@2" "@modelcontextprotocol/server@2" "zod@4" >/dev/null)
fi
# Node 22 (npm's node package): the extensions fixture is TypeScript, run with
# --experimental-strip-types, which Node 20 lacks.
if [ ! -x "$fx/node22/node_modules/.bin/node" ]; then
  mkdir -p "$fx/node22"
  (cd "$fx/node22" && npm install --silent --no-audit --no-fund --prefix . node@22 >/dev/null)
fi
# The dashboard test drives a real browser: Debian's chromium through playwright-core.
if [ ! -f "$fx/node/node_modules/playwright-core/package.json" ]; then
  (cd "$fx/node" && npm install --silent --no-audit --no-fund --prefix . playwright-core >/dev/null)
fi
# A real OpenID provider (panva's oidc-provider, OpenID certified) for the identity tests.
if [ ! -f "$fx/node/node_modules/oidc-provider/package.json" ]; then
  (cd "$fx/node" && npm install --silent --no-audit --no-fund --prefix . "oidc-provider@9" >/dev/null)
fi
# Debian packages: a browser for the dashboard test, a load balancer for the replica tests.
debian() { # COMMAND PACKAGE WHY
  command -v "$1" >/dev/null && return
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y -q --no-install-recommends "$2" >/dev/null \
      || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "$2" >/dev/null; }
  else
    echo "$3: install Debian's $2 (sudo apt-get install $2)" >&2
    exit 1
  fi
}
debian chromium chromium "the dashboard test needs a browser"
debian haproxy haproxy "the replica tests need a load balancer"
debian prometheus prometheus "the deploy topology test scrapes the replicas with Prometheus"
debian zsh zsh "the packaging test loads the zsh completions"
debian fish fish "the packaging test loads the fish completions"
echo "fixtures ready in $fx"

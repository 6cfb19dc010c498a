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

if [ ! -f "$fx/node/node_modules/@modelcontextprotocol/server-everything/package.json" ]; then
  mkdir -p "$fx/node"
  (cd "$fx/node" && npm install --silent --no-audit --no-fund --prefix . @modelcontextprotocol/server-everything >/dev/null)
fi
echo "fixtures ready in $fx"

#!/usr/bin/env bash
# The official MCP conformance suite: its client suites `core` and `auth` with Switchboard as
# the client (scripts/conformance/client.sh makes the scenario's server Switchboard's one
# upstream and calls a tool through the gateway; known failures with their reasons are in
# scripts/conformance/baseline.yml), then the `dns-rebinding-protection` server scenario
# against `switchboard serve` on loopback. Installs Node 22 (npm package node@22) and the
# suite into .fixtures/conformance; needs the debug binary (scripts/test.sh builds it).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
fx="$root/.fixtures/conformance"
mkdir -p "$fx"
if [ ! -x "$fx/node_modules/.bin/node" ] || [ ! -f "$fx/node_modules/@modelcontextprotocol/conformance/package.json" ]; then
  (cd "$fx" && npm install --silent --no-audit --no-fund --prefix . node@22 @modelcontextprotocol/conformance >/dev/null)
fi
node22="$fx/node_modules/.bin/node"
suite_js="$fx/node_modules/@modelcontextprotocol/conformance/dist/index.js"
bin="$root/target/debug/switchboard"
[ -x "$bin" ] || cargo build -q -p switchboard

for suite in core auth; do
  echo "conformance: client suite $suite"
  "$node22" "$suite_js" client --suite "$suite" --command "$root/scripts/conformance/client.sh" \
    --expected-failures "$root/scripts/conformance/baseline.yml" -o "$fx/results" > "$fx/client-$suite.log" 2>&1 \
    || { tail -60 "$fx/client-$suite.log"; exit 1; }
  sed -n '/=== SUITE SUMMARY ===/,$p' "$fx/client-$suite.log"
done

cfg="$(mktemp -d)"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$cfg"' EXIT
printf '{"mcpServers": {"time": {"command": "%s", "args": ["-m", "mcp_server_time"]}}}\n' \
  "$root/.fixtures/venv/bin/python" > "$cfg/mcp.json"
SWITCHBOARD_DATA="$cfg/data" "$bin" serve --listen 127.0.0.1:0 -c "$cfg/mcp.json" 2> "$cfg/serve.log" &
pid=$!
# Wait (at most 60 s) for the line that says every server was tried.
timeout 60 grep -m1 -q '^switchboard ready' <(tail -n +1 -f "$cfg/serve.log") || true
url="$(sed -n 's/^switchboard listening on //p' "$cfg/serve.log")"
[ -n "$url" ] || { echo "switchboard did not start"; cat "$cfg/serve.log"; exit 1; }
# The scenario needs a localhost URL (it swaps the Host header to simulate rebinding).
url="${url/127.0.0.1/localhost}"
"$node22" "$suite_js" server --url "$url" --scenario dns-rebinding-protection | tee "$cfg/result.txt"
grep -q "0 failed" "$cfg/result.txt"

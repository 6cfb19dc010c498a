#!/usr/bin/env bash
# Added latency of a relayed elicitation round trip: the same Python SDK client calls the
# fixture's ask_name directly over Streamable HTTP, then through the release `switchboard serve`
# (fixture as an HTTP upstream and as a stdio child), alternating for BENCH_ROUNDS rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/fixtures.sh >/dev/null
cargo build --release -q -p switchboard
py=.fixtures/venv/bin/python
n="${BENCH_CALLS:-200}"
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
"$py" tests/fixtures/relay_server.py http >"$work/up.out" 2>/dev/null &
until grep -q "listening on" "$work/up.out"; do sleep 0.1; done
up="$(sed -n 's/listening on //p' "$work/up.out")"
cat >"$work/mcp.json" <<JSON
{"mcpServers": {"relayh": {"type": "http", "url": "$up"},
 "relay": {"command": "$PWD/$py", "args": ["$PWD/tests/fixtures/relay_server.py", "stdio"]}}}
JSON
SWITCHBOARD_DATA="$work/data" target/release/switchboard serve --dev --listen 127.0.0.1:0 \
  -c "$work/mcp.json" 2>"$work/gw.log" &
until grep -q "switchboard ready" "$work/gw.log"; do sleep 0.1; done
gw="$(sed -n 's/^switchboard listening on //p' "$work/gw.log")"
for round in $(seq "${BENCH_ROUNDS:-3}"); do
  echo "round $round"
  "$py" tests/clients/relay_bench.py "$up" ask_name "$n"
  "$py" tests/clients/relay_bench.py "$gw" relayh__ask_name "$n"
  "$py" tests/clients/relay_bench.py "$gw" relay__ask_name "$n"
done

#!/usr/bin/env bash
# The overhead bench as a user's load generator sees it (issue 41): wrk with
# scripts/bench/mcp_call.lua against the echo upstream directly, through this build (HTTP and
# stdio upstream) and through agentgateway (HTTP and stdio upstream), alternating each round.
# agentgateway comes from ../shared/peers/agentgateway/ (or BENCH_AGENTGATEWAY=/path/to/it).
# Knobs: BENCH_CALLERS (32), BENCH_SECONDS (5 per run), BENCH_ROUNDS (3).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
command -v "${BENCH_WRK:-wrk}" >/dev/null || { echo "wrk is missing: apt install wrk" >&2; exit 1; }
cargo build --release -q -p switchboard -p switchboard-testkit -p switchboard-bench
if [ -z "${BENCH_AGENTGATEWAY:-}" ]; then
  peer="$root/../shared/peers/agentgateway/agentgateway.gz"
  if [ -f "$peer" ]; then
    mkdir -p "$root/.fixtures/peers"
    BENCH_AGENTGATEWAY="$root/.fixtures/peers/agentgateway"
    [ -x "$BENCH_AGENTGATEWAY" ] || { gunzip -c "$peer" > "$BENCH_AGENTGATEWAY" && chmod +x "$BENCH_AGENTGATEWAY"; }
    export BENCH_AGENTGATEWAY
  fi
fi
exec target/release/wrk-overhead

#!/usr/bin/env bash
# The overhead bench with the lean load generator (issue 13): builds the release binaries,
# installs the peers (the Python mcp-proxy into .fixtures/bench-venv, supergateway from npm
# into .fixtures/bench-node; both git-ignored), and runs lean-overhead against the echo
# upstream directly, through this build (HTTP and stdio upstream), through BENCH_BEFORE (an
# older switchboard binary) when set, and through the peers (stdio upstream).
# Knobs: BENCH_CALLERS (32), BENCH_CALLS (200 per caller; 4x that for 1 caller), BENCH_ROUNDS (3).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
cargo build --release -q -p switchboard -p switchboard-testkit -p switchboard-bench
venv="$root/.fixtures/bench-venv"
if [ ! -x "$venv/bin/mcp-proxy" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp-proxy==0.13.0"
fi
node_dir="$root/.fixtures/bench-node"
if [ ! -x "$node_dir/node_modules/.bin/supergateway" ]; then
  mkdir -p "$node_dir"
  (cd "$node_dir" && npm install --silent --no-audit --no-fund --prefix . "supergateway@3.4.3" >/dev/null)
fi
BENCH_MCP_PROXY="$venv/bin/mcp-proxy" \
  BENCH_SUPERGATEWAY="$node_dir/node_modules/.bin/supergateway" \
  exec target/release/lean-overhead

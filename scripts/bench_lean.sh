#!/usr/bin/env bash
# The overhead bench with the lean load generator (issue 13): builds the release binaries,
# installs the Python mcp-proxy peer into .fixtures/bench-venv (git-ignored), and runs
# lean-overhead against the echo upstream directly, through this build (HTTP and stdio
# upstream), through BENCH_BEFORE (an older switchboard binary) when set, and through mcp-proxy.
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
BENCH_MCP_PROXY="$venv/bin/mcp-proxy" exec target/release/lean-overhead

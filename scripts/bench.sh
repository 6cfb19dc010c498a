#!/usr/bin/env bash
# End-to-end overhead benchmark: builds the release binaries, then runs the same echo calls
# direct and through `switchboard serve`. Tune with BENCH_SEQUENTIAL_CALLS, BENCH_CALLERS,
# BENCH_CALLS_PER_CALLER, BENCH_ROUNDS; BENCH_JSON=1 adds a JSON summary.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p switchboard -p switchboard-testkit -p switchboard-bench
exec target/release/e2e-overhead

#!/usr/bin/env bash
# Profiles `switchboard serve` (HTTP upstream) under the lean-overhead load with
# `perf record -e cpu-clock` (hardware counters are not available on these machines) and
# writes a flame graph and a per-task breakdown to target/profile/. The release profile keeps
# line tables, so frames are named. Needs perf and inferno (`cargo install inferno`).
# The recording covers the whole run of that gateway: its 1-caller and 32-caller phases.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
cargo build --release -q -p switchboard -p switchboard-testkit -p switchboard-bench
out="$root/target/profile"
mkdir -p "$out"
BENCH_ROUNDS=1 BENCH_CALLS="${BENCH_CALLS:-1500}" target/release/lean-overhead > "$out/bench.txt" 2>&1 &
bench=$!
pid=""
for _ in $(seq 100); do
  pid="$(pgrep -f 'switchboard serve --dev --listen 127.0.0.1:0 --log warn --data .*/this -c' || true)"
  [ -n "$pid" ] && break
  sleep 0.1
done
[ -n "$pid" ] || { echo "the gateway did not start" >&2; exit 1; }
perf record -q -o "$out/perf.data" -e cpu-clock -F 499 --call-graph dwarf,16384 -p "$pid" 2>/dev/null &
perf_pid=$!
wait "$bench"
kill -INT "$perf_pid" 2>/dev/null || true
wait "$perf_pid" 2>/dev/null || true
perf script -i "$out/perf.data" 2>/dev/null | inferno-collapse-perf > "$out/folded.txt"
inferno-flamegraph --minwidth 1.0 < "$out/folded.txt" > "$out/flame.svg"
cat "$out/bench.txt"
python3 scripts/profile_breakdown.py "$out/folded.txt"
echo "flame graph: $out/flame.svg"

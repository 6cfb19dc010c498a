#!/usr/bin/env bash
# Profiles `switchboard serve` (HTTP upstream) under the lean-overhead load with
# `perf record -e cpu-clock` (hardware counters are not available on these machines) and
# writes a flame graph and a per-task breakdown to target/profile/. The release profile keeps
# line tables, so frames are named. Needs perf and inferno (`cargo install inferno`).
# The recording covers the whole run of that gateway: its 1-caller and 32-caller phases.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
for tool in perf inferno-collapse-perf inferno-flamegraph; do
  command -v "$tool" >/dev/null || {
    echo "$tool is missing: install perf (Debian: linux-perf) and inferno (cargo install inferno)" >&2
    exit 1
  }
done
cargo build --release -q -p switchboard -p switchboard-testkit -p switchboard-bench
out="$root/target/profile"
mkdir -p "$out"
BENCH_ROUNDS=1 BENCH_CALLS="${BENCH_CALLS:-1500}" target/release/lean-overhead > "$out/bench.txt" 2>&1 &
bench=$!
trap 'kill "$bench" 2>/dev/null || true' EXIT
# lean-overhead names the pid of the gateway it measures first (this build, HTTP upstream).
pid=""
for _ in $(seq 300); do
  pid="$(sed -n 's/^measured gateway pid: //p' "$out/bench.txt")"
  [ -n "$pid" ] && break
  kill -0 "$bench" 2>/dev/null || break
  sleep 0.1
done
[ -n "$pid" ] || { echo "the gateway did not start:" >&2; cat "$out/bench.txt" >&2; exit 1; }
perf record -q -o "$out/perf.data" -e cpu-clock -F 499 --call-graph dwarf,16384 -p "$pid" &
perf_pid=$!
wait "$bench"
kill -INT "$perf_pid" 2>/dev/null || true
wait "$perf_pid" 2>/dev/null || true
perf script -i "$out/perf.data" 2>"$out/perf-script.log" | inferno-collapse-perf > "$out/folded.txt"
inferno-flamegraph --minwidth 1.0 < "$out/folded.txt" > "$out/flame.svg"
cat "$out/bench.txt"
python3 scripts/profile_breakdown.py "$out/folded.txt"
echo "flame graph: $out/flame.svg"

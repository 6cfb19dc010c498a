#!/usr/bin/env bash
# Fuzzes every target of fuzz/ for SECONDS each (default 10) on the stable toolchain
# (`-s none`: no sanitizer, which needs nightly). cargo-fuzz is installed into
# .fixtures/cargo when missing. New inputs go to fuzz/work/<target> (ignored), seeded by the
# committed fuzz/corpus/<target>; a crash leaves its input in fuzz/artifacts/<target> and
# fails the script. Usage: bash scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(config_file egress_url names jsonrpc rest_bodies policy_doc)
fi
export PATH="$PWD/.fixtures/cargo/bin:$PATH"
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked --root .fixtures/cargo
fi
cd fuzz
cargo fuzz build -s none
for target in "${targets[@]}"; do
  mkdir -p "work/$target"
  echo "fuzzing $target for ${seconds}s"
  cargo fuzz run -s none "$target" "work/$target" "corpus/$target" -- \
    -max_total_time="$seconds" -print_final_stats=1 2>&1 | grep -E "^(stat::|#[0-9]+ +DONE|==|SUMMARY|artifact)|panicked|Done" || true
  if [ -n "$(find "artifacts/$target" -type f 2>/dev/null)" ]; then
    echo "fuzz target $target found a failing input: fuzz/artifacts/$target (replay with: cd fuzz && cargo fuzz run -s none $target artifacts/$target/<file>)" >&2
    exit 1
  fi
done

#!/usr/bin/env bash
# The whole test suite: installs the real fixture servers and clients into .fixtures/ (npm and
# pip, git-ignored), then runs every Rust test (unit, integration, doc).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/fixtures.sh
cargo test --workspace --all-targets --no-fail-fast
cargo test --workspace --doc
bash scripts/conformance.sh

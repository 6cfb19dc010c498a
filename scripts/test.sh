#!/usr/bin/env bash
# The whole test suite: installs the real fixture servers and clients into .fixtures/ (npm and
# pip, git-ignored), then runs every Rust test (unit, integration, doc).
set -euo pipefail
cd "$(dirname "$0")/.."
# The store suite also runs against Postgres (the local one unless you point elsewhere).
export SWITCHBOARD_TEST_DATABASE_URL="${SWITCHBOARD_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
bash scripts/fixtures.sh
cargo test --workspace --all-targets --no-fail-fast
cargo test --workspace --doc
# The OS keychain token store is behind a cargo feature; its test runs against this machine's
# kernel keyring.
cargo test -p switchboard-upstream --features keychain --lib keychain
bash scripts/conformance.sh

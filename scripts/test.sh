#!/usr/bin/env bash
# The whole test suite: installs the real fixture servers and clients into .fixtures/ (npm and
# pip, git-ignored), then runs every Rust test (unit, integration, doc).
set -euo pipefail
cd "$(dirname "$0")/.."
# The store suite also runs against Postgres (the local one unless you point elsewhere).
export SWITCHBOARD_TEST_DATABASE_URL="${SWITCHBOARD_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
bash scripts/fixtures.sh
# Commands started without --data use the per-user data folder: a fresh one for this run, so
# tests never share the developer's own store and key.
export XDG_DATA_HOME="$(mktemp -d)"
# The dashboard test's browser: the one on PATH unless CHROMIUM says otherwise.
export CHROMIUM="${CHROMIUM:-$(command -v chromium || true)}"
# With the OS keychain token store (a cargo feature) built in, so its test runs too, against
# this machine's kernel keyring.
cargo test --workspace --all-targets --no-fail-fast --features switchboard/keychain
cargo test --workspace --doc --features switchboard/keychain
# The library without the embedding model: the registry's tree links none, and search ranks
# by words alone (the workspace build above has the model in).
if cargo tree -q -p switchboard-registry --no-default-features -e normal --prefix none | grep -q '^switchboard-embed '; then
  echo "switchboard-registry --no-default-features still links the embedding model" >&2
  exit 1
fi
cargo test -q -p switchboard-search --no-default-features --lib
# The scanner without its learned classifier: no model in the policy crate's build, and the
# rules alone meet their own floors.
if cargo tree -q -p switchboard-policy --no-default-features -f '{p} [{f}]' --prefix none | grep -q '^switchboard-scan .*classifier'; then
  echo "switchboard-policy --no-default-features still builds the scanner's classifier" >&2
  exit 1
fi
cargo test -q -p switchboard-scan --no-default-features
bash scripts/conformance.sh

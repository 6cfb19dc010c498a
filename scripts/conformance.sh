#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, with Node 22 from npm,
# both installed into .fixtures/conformance; needs the debug binary, which scripts/test.sh builds):
# - its client suites `core` and `auth` with Switchboard as the client
#   (scripts/conformance/client.sh makes the scenario's server Switchboard's one upstream and
#   calls a tool through the gateway; known failures and their reasons would be listed in
#   scripts/conformance/baseline.yml);
# - its `server` suite against tests/fixtures/conformance_server.mjs (TypeScript SDK) alone, then
#   through `switchboard serve --naming "{tool}"` with that fixture as a stdio and as a
#   Streamable HTTP upstream: every scenario that passes alone must pass through the gateway,
#   unless scripts/conformance/server-baseline.txt names it with a reason;
# - the `dns-rebinding-protection` scenario against `switchboard serve` (part of the above);
# - the next release's (0.2.0-alpha.12) 2026-07-28 requirements against the suite's reference
#   server (tests/fixtures/conformance_reference) alone, then through the gateway with it as a plain
#   entry: the same rule, with scripts/conformance/next-baseline.txt;
# - that release's extension scenarios (tasks-*, sep-2640-skills-*) against
#   tests/fixtures/extensions_server.ts alone, then through the gateway with it as an HTTP and a
#   stdio upstream: the same rule, with scripts/conformance/extensions-baseline.txt.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
for needed in .fixtures/venv/bin/python .fixtures/node/node_modules/@modelcontextprotocol/sdk/package.json; do
  [ -e "$root/$needed" ] || { echo "conformance: $needed is missing: run scripts/fixtures.sh first" >&2; exit 1; }
done
fx="$root/.fixtures/conformance"
mkdir -p "$fx"
# Pinned: the README's scenario counts and the empty baselines are for this version.
suite_version=0.1.16
# Server scenarios the fixture passes alone at that version: fewer means lost coverage.
server_scenarios=32
if [ ! -x "$fx/node_modules/.bin/node" ] \
  || ! grep -q "\"version\": \"$suite_version\"" "$fx/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null; then
  (cd "$fx" && npm install --silent --no-audit --no-fund --prefix . node@22 "@modelcontextprotocol/conformance@$suite_version" >/dev/null)
fi
node22="$fx/node_modules/.bin/node"
suite_js="$fx/node_modules/@modelcontextprotocol/conformance/dist/index.js"
bin="$root/target/debug/switchboard"
# A no-op when the binary is current; never a stale one when this script runs on its own. The
# same packages and features as scripts/test.sh, so after it nothing is built again (a plain
# `cargo build -p switchboard` resolves other dependency features and rebuilds tokio and friends
# into a second copy, which once filled a CI disk).
cargo test -q --workspace --all-targets --no-run --features switchboard/keychain

for suite in core auth; do
  echo "conformance: client suite $suite"
  "$node22" "$suite_js" client --suite "$suite" --command "$root/scripts/conformance/client.sh" \
    --expected-failures "$root/scripts/conformance/baseline.yml" -o "$fx/results" > "$fx/client-$suite.log" 2>&1 \
    || { tail -60 "$fx/client-$suite.log"; exit 1; }
  sed -n '/=== SUITE SUMMARY ===/,$p' "$fx/client-$suite.log"
done

work="$(mktemp -d)"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT

# Waits (at most 60 s) for a process's `LINE_PREFIX…` line in LOG and prints the rest of it.
await_line() { # LOG LINE_PREFIX
  # -F: the log may not exist yet (the process writing it was started in the background and
  # its shell may not have opened it); -f gave up at once and the wait found nothing.
  timeout 60 grep -m1 -q "^$2" <(tail -n +1 -F "$1" 2>/dev/null) || true
  sed -n "s/^$2//p" "$1" | head -1
}

# Starts `switchboard serve` on CONFIG (every server tried first); sets `url` to its /mcp URL
# with host `localhost` (dns-rebinding-protection swaps the Host header to simulate rebinding).
gateway() { # NAME CONFIG [ARG…]
  local name="$1" config="$2"
  shift 2
  SWITCHBOARD_DATA="$work/$name-data" "$bin" serve --dev --listen 127.0.0.1:0 -c "$config" "$@" \
    > /dev/null 2> "$work/$name.log" &
  pids+=($!)
  await_line "$work/$name.log" 'switchboard ready' >/dev/null
  url="$(await_line "$work/$name.log" 'switchboard listening on ')"
  [ -n "$url" ] || { echo "switchboard ($name) did not start"; cat "$work/$name.log"; exit 1; }
  url="${url/127.0.0.1/localhost}"
}

# Runs the whole server suite against URL; prints the scenarios that passed.
server_suite() { # NAME URL
  rm -rf "$fx/server-$1"
  "$node22" "$suite_js" server --url "$2" --suite all -o "$fx/server-$1" > "$fx/server-$1.log" 2>&1 || true
  python3 "$root/scripts/conformance/passed.py" "$fx/server-$1"
}

fixture="$root/tests/fixtures/conformance_server.mjs"
"$node22" "$fixture" http > "$work/fixture.log" 2>&1 &
pids+=($!)
fixture_url="$(await_line "$work/fixture.log" 'listening on ')"
[ -n "$fixture_url" ] || { echo "the conformance fixture did not start"; cat "$work/fixture.log"; exit 1; }
# Sandboxed as every stdio server is; the fixture loads the SDK from .fixtures/node, which its
# command line does not name: granted read-only here.
printf '{"mcpServers": {"conf": {"command": "%s", "args": ["%s", "stdio"], "sandbox": {"read": ["%s"]}}}}\n' \
  "$node22" "$fixture" "$root/.fixtures/node" > "$work/stdio.json"
printf '{"mcpServers": {"conf": {"type": "http", "url": "%s"}}}\n' "$fixture_url" > "$work/http.json"

echo "conformance: server suite"
server_suite alone "$fixture_url" > "$work/alone.txt"
alone_count="$(wc -l < "$work/alone.txt")"
if [ "$alone_count" -lt "$server_scenarios" ]; then
  echo "only $alone_count of $server_scenarios server scenarios pass against the fixture alone (tests/fixtures/conformance_server.mjs or the suite changed)"
  tail -40 "$fx/server-alone.log"
  exit 1
fi
# Every scenario in ALONE (a file) must be in THROUGH, unless BASELINE names it; a baseline
# entry that passes must go. Says which, and sets failed=1 for either.
compare() { # ALONE THROUGH BASELINE WHAT LOG
  local known lost scenario
  known="$(grep -v '^#' "$3" | awk '{print $1}' || true)"
  lost="$(comm -23 <(sort -u "$1") <(sort -u "$2"))"
  for scenario in $lost; do
    if grep -qx "$scenario" <<<"$known"; then
      echo "  $scenario: fails through the gateway ($4), as $(basename "$3") says"
    else
      echo "  FAILED through the gateway ($4), passes alone: $scenario (see $5)"
      failed=1
    fi
  done
  for scenario in $known; do
    if ! grep -qx "$scenario" <<<"$lost"; then
      echo "  $scenario is in $(basename "$3") but passes through the gateway ($4): remove it"
      failed=1
    fi
  done
  echo "  $4: $(wc -l < "$2") scenarios pass through the gateway, $(wc -l < "$1") alone"
}

failed=0
for upstream in stdio http; do
  gateway "$upstream" "$work/$upstream.json" --naming '{tool}'
  server_suite "gateway-$upstream" "$url" > "$work/$upstream.txt"
  compare "$work/alone.txt" "$work/$upstream.txt" "$root/scripts/conformance/server-baseline.txt" \
    "$upstream upstream" "$fx/server-gateway-$upstream.log"
done
grep -qx dns-rebinding-protection "$work/stdio.txt" || { echo "  FAILED: dns-rebinding-protection"; failed=1; }

# The next release's requirements for 2026-07-28, at that revision's wire, against the suite's own
# reference server (tests/fixtures/conformance_reference) alone and then through the gateway with a
# plain entry (no protocol_version: the gateway discovers what the upstream speaks). Every scenario
# that passes alone must pass through the gateway, unless next-baseline.txt names it with a reason.
next_version=0.2.0-alpha.12
# Scenarios the reference server passes alone at that version: fewer means lost coverage.
next_scenarios=32
nx="$root/.fixtures/conformance-next"
mkdir -p "$nx"
if ! grep -q "\"version\": \"$next_version\"" "$nx/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null; then
  (cd "$nx" && npm install --silent --no-audit --no-fund --prefix . node@22 \
    "@modelcontextprotocol/conformance@$next_version" "@modelcontextprotocol/sdk@1" express@5 cors zod@4 >/dev/null)
fi
# An ES module, run where its packages are (Node resolves imports from the file's folder).
printf '{"type": "module", "private": true}\n' > "$nx/package.json"
cp "$root/tests/fixtures/conformance_reference/everything-server.ts" "$nx/everything-server.ts"
"$nx/node_modules/.bin/node" --experimental-strip-types --no-warnings "$nx/everything-server.ts" \
  > "$work/reference.log" 2>&1 &
pids+=($!)
reference_url="$(await_line "$work/reference.log" 'listening on ')"
[ -n "$reference_url" ] || { echo "the reference server did not start"; cat "$work/reference.log"; exit 1; }

# Runs the 2026-07-28 requirements against URL; prints the scenarios that passed.
next_suite() { # NAME URL
  rm -rf "$fx/next-$1"
  "$nx/node_modules/.bin/node" "$nx/node_modules/@modelcontextprotocol/conformance/dist/index.js" \
    server --url "$2" --requirements 2026-07-28 -o "$fx/next-$1" > "$fx/next-$1.log" 2>&1 || true
  python3 "$root/scripts/conformance/passed.py" "$fx/next-$1" | sort -u
}

echo "conformance: $next_version, 2026-07-28 requirements"
next_suite alone "$reference_url" > "$work/next-alone.txt"
if [ "$(wc -l < "$work/next-alone.txt")" -lt "$next_scenarios" ]; then
  echo "only $(wc -l < "$work/next-alone.txt") of $next_scenarios scenarios pass against the reference server alone"
  tail -60 "$fx/next-alone.log"
  exit 1
fi
printf '{"mcpServers": {"conf": {"type": "http", "url": "%s"}}}\n' "$reference_url" > "$work/next.json"
gateway next "$work/next.json" --naming '{tool}'
next_suite gateway "$url" > "$work/next-gateway.txt"
compare "$work/next-alone.txt" "$work/next-gateway.txt" "$root/scripts/conformance/next-baseline.txt" \
  "2026-07-28, plain http entry" "$fx/next-gateway.log"

# The extensions callers and upstreams share (tasks, SEP-2663; skills, SEP-2640): the same
# release's extension scenarios against tests/fixtures/extensions_server.ts alone, then through
# the gateway with it as an HTTP upstream and as a (sandboxed) stdio upstream.
extension_scenarios=(tasks-lifecycle tasks-capability-negotiation tasks-wire-fields
  tasks-request-state-removal tasks-mrtr-input tasks-request-headers tasks-dispatch-and-envelope
  tasks-status-notifications tasks-required-task-error tasks-mrtr-composition
  sep-2640-skills-directory sep-2640-skills-enumeration sep-2640-skills-manifest)
cp "$root/tests/fixtures/extensions_server.ts" "$nx/extensions_server.ts"
"$nx/node_modules/.bin/node" --experimental-strip-types --no-warnings "$nx/extensions_server.ts" \
  > "$work/extensions.log" 2>&1 &
pids+=($!)
extensions_url="$(await_line "$work/extensions.log" 'listening on ')"
[ -n "$extensions_url" ] || { echo "the extensions fixture did not start"; cat "$work/extensions.log"; exit 1; }

# Runs the extension scenarios against URL; prints the scenarios that passed.
extension_suite() { # NAME URL
  rm -rf "$fx/ext-$1"
  for scenario in "${extension_scenarios[@]}"; do
    "$nx/node_modules/.bin/node" "$nx/node_modules/@modelcontextprotocol/conformance/dist/index.js" \
      server --url "$2" --scenario "$scenario" -o "$fx/ext-$1" >> "$fx/ext-$1.log" 2>&1 || true
  done
  python3 "$root/scripts/conformance/passed.py" "$fx/ext-$1" | sort -u
}

echo "conformance: $next_version, extensions (tasks, skills)"
: > "$fx/ext-alone.log"
extension_suite alone "$extensions_url" > "$work/ext-alone.txt"
if [ "$(wc -l < "$work/ext-alone.txt")" -lt "${#extension_scenarios[@]}" ]; then
  echo "only $(wc -l < "$work/ext-alone.txt") of ${#extension_scenarios[@]} extension scenarios pass against the fixture alone"
  tail -60 "$fx/ext-alone.log"
  exit 1
fi
printf '{"mcpServers": {"ext": {"type": "http", "url": "%s"}}}\n' "$extensions_url" > "$work/ext-http.json"
printf '{"mcpServers": {"ext": {"command": "%s", "args": ["--experimental-strip-types", "--no-warnings", "%s", "--stdio"]}}}\n' \
  "$nx/node_modules/.bin/node" "$nx/extensions_server.ts" > "$work/ext-stdio.json"
for upstream in http stdio; do
  gateway "ext-$upstream" "$work/ext-$upstream.json" --naming '{tool}'
  : > "$fx/ext-gateway-$upstream.log"
  extension_suite "gateway-$upstream" "$url" > "$work/ext-$upstream.txt"
  compare "$work/ext-alone.txt" "$work/ext-$upstream.txt" "$root/scripts/conformance/extensions-baseline.txt" \
    "extensions, $upstream upstream" "$fx/ext-gateway-$upstream.log"
done
exit "$failed"

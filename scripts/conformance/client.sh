#!/usr/bin/env bash
# The conformance suite's client under test: Switchboard with the scenario's server (the URL
# argument) as its one upstream, authorizing through `switchboard auth login` where the
# scenario needs OAuth, then calling a tool through the gateway's full pipeline (for
# elicitation scenarios from a Python SDK client in front of `switchboard stdio`, which
# answers what the upstream asks).
# Called as `client.sh URL` with MCP_CONFORMANCE_SCENARIO (and MCP_CONFORMANCE_CONTEXT) set.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
sb="${SWITCHBOARD_BIN:-$root/target/debug/switchboard}"
url="$1"
scenario="${MCP_CONFORMANCE_SCENARIO:-}"
context="${MCP_CONFORMANCE_CONTEXT:-{\}}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
export SWITCHBOARD_DATA="$dir/data"
unset SWITCHBOARD_DATABASE_URL

# The server entry: OAuth scenarios use the authorization code flow, with the client from
# the scenario's context where it pre-registers one.
python3 - "$url" "$scenario" "$context" > "$dir/mcp.json" <<'PY'
import json, sys
url, scenario, context = sys.argv[1], sys.argv[2], json.loads(sys.argv[3] or "{}")
server = {"type": "http", "url": url}
if scenario.startswith("auth/"):
    auth = {"type": "authorizationCode",
            "clientMetadataUrl": "https://conformance-test.local/client-metadata.json"}
    if "client_id" in context:
        auth["clientId"] = context["client_id"]
        if "client_secret" in context:
            auth["clientSecret"] = context["client_secret"]
    server["auth"] = auth
print(json.dumps({"mcpServers": {"conf": server}}))
PY
run() { "$sb" --dev -c "$dir/mcp.json" "$@"; }
login() { run auth login conf --open-with "$here/open-url.sh" --timeout 20; }

case "$scenario" in auth/*) login ;; esac
case "$scenario" in
  tools_call) tool=conf__add_numbers; args='{"a": 5, "b": 3}' ;;
  *)
    tool="$(run tools --json | python3 -c 'import json,sys; t=json.load(sys.stdin); print(t[0]["name"] if t else "")')"
    args='{}'
    ;;
esac
[ -n "$tool" ] || exit 0
# An upstream that elicits needs someone to answer: a real SDK client in front of
# `switchboard stdio`, accepting the form as offered (every field at its default).
case "$scenario" in
  elicitation-*)
    "$root/.fixtures/venv/bin/python" "$root/tests/clients/accept_defaults.py" "$tool" "$args" \
      -- "$sb" --dev -c "$dir/mcp.json" stdio
    exit 0
    ;;
esac
# A tool that needs more scope sends the server back to `authenticating`: authorize again
# (asking for the scope the refusal named) and call once more.
if ! run call "$tool" --args "$args"; then
  case "$scenario" in auth/*) login && run call "$tool" --args "$args" ;; *) exit 1 ;; esac
fi

#!/usr/bin/env bash
# A stand-in for a person's browser in the conformance suite: asks for the authorize URL, then
# follows its one redirect (the test authorization server approves at once) to our callback.
set -euo pipefail
location="$(curl -s -o /dev/null -w '%{redirect_url}' "$1")"
[ -n "$location" ] || { echo "the authorization server did not redirect" >&2; exit 1; }
curl -s -o /dev/null "$location"

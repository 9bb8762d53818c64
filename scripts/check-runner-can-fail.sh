#!/usr/bin/env bash
# Proves the test runner can still fail: runs one deliberately failing test through the suite's own
# vitest configuration and global setup, and stops CI when the runner exits 0 anyway.
set -uo pipefail
cd "$(dirname "$0")/.."

output=$(PAYRUN_CANARY=1 npx vitest run 2>&1)
code=$?
printf '%s\n' "$output" | tail -n 8
if [ "$code" -eq 0 ]; then
  echo "check-runner-can-fail: the deliberately failing canary test exited 0." >&2
  echo "The test runner can no longer fail, so a green npm test proves nothing. Stopping." >&2
  exit 1
fi
if ! printf '%s\n' "$output" | grep -q 'a deliberately failing assertion'; then
  echo "check-runner-can-fail: the runner exited $code, but not because of the canary (setup broken?)." >&2
  exit 1
fi
echo "check-runner-can-fail: the canary failed as it must (exit $code); the runner can fail."

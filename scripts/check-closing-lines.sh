#!/usr/bin/env bash
# CI's checker reads a run's closing lines: pytest's `== 2 warnings in 43.2s ==` (a run that executed no
# test), the plain `N passed, N failed`, and those of other runners. Anything the suite prints (a child
# tool's summary, a test's own log line) that reads like one can make it misjudge a green run, as
# schemathesis's pytest-style summary once did. This fails CI when such a line appears in the npm test
# log, or when either layer's own count line is missing.
set -uo pipefail
log=${1:?usage: check-closing-lines.sh LOG}

# Colours stripped into a file of its own: `grep -q` on a pipe would stop reading at the first match and,
# under pipefail, fail the pipeline on the writer's broken pipe.
plain=$(mktemp)
trap 'rm -f "$plain"' EXIT
sed 's/\x1b\[[0-9;]*m//g' "$log" > "$plain"
foreign=$(grep -nE \
  -e '^=*[[:space:]]*([0-9]+ [a-z]+(, )?)+ in [0-9.]+m?s[[:space:]]*=*$' \
  -e '^=*[[:space:]]*no tests ran' \
  -e '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed' "$plain" |
  grep -vE '^[0-9]+:(suite|workflows): [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$')
if [ -n "$foreign" ]; then
  echo "check-closing-lines: the test log has lines that read as another test run's closing line:" >&2
  printf '%s\n' "$foreign" >&2
  echo "Reword them: CI's checker may count one of them instead of the suite's own line." >&2
  exit 1
fi
for layer in suite workflows; do
  if ! grep -qE "^$layer: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$" "$plain"; then
    echo "check-closing-lines: no '$layer: N passed, N failed, N skipped' line in the test log." >&2
    exit 1
  fi
done
echo "check-closing-lines: the only closing lines are the suite's and the fast layer's."

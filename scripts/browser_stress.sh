#!/usr/bin/env bash
# The browser (Chromium) tests N times in a row (default 5) while `stress-ng --cpu 2` loads the
# machine (issue 22.11): every run must be green. Prints each run's time, result and the clicks
# the tests had to retry (tests/helpers/browser_helpers.py, click_until), and the load average.
# Usage: scripts/browser_stress.sh [N] [pytest args...]
set -uo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"
shift || true
python="${PYTHON:-.venv/bin/python}"
stress-ng --cpu 2 --timeout 0 --quiet &
stress=$!
trap 'kill "$stress" 2>/dev/null' EXIT
failed=0
for run in $(seq 1 "$runs"); do
  started=$(date +%s)
  "$python" -m pytest -p no:cacheprovider -q -m browser tests/annotate/app tests/security tests/deploy "$@" \
    > "/tmp/prb-browser-stress-$run.log" 2>&1
  code=$?
  took=$(( $(date +%s) - started ))
  summary=$(grep -E "passed|failed|error" "/tmp/prb-browser-stress-$run.log" | tail -n 1)
  retried=$(grep -E "^browser clicks retried" "/tmp/prb-browser-stress-$run.log" || echo "no click retried")
  echo "run $run: exit $code, ${took} s, ${summary}; ${retried}; load $(cut -d' ' -f1-3 /proc/loadavg)"
  [ "$code" -eq 0 ] || failed=1
done
exit "$failed"

#!/usr/bin/env bash
# Set up (venv, test tools, Chromium) and run the whole test suite on SQLite, then again on the
# PostgreSQL server at 127.0.0.1:5432 when one answers (each test gets its own database there,
# dropped afterwards). PRB_TEST_POSTGRES=0 skips the PostgreSQL run; PRB_TEST_POSTGRES_URL picks
# another server. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test

echo "== test suite on SQLite"
.venv/bin/python -m pytest "$@"

server="${PRB_TEST_POSTGRES_URL:-postgresql+psycopg://postgres@127.0.0.1:5432/postgres}"
if [ "${PRB_TEST_POSTGRES:-1}" = "0" ]; then
  echo "== PostgreSQL run skipped (PRB_TEST_POSTGRES=0)"
elif .venv/bin/python scripts/postgres_ready.py "$server"; then
  echo "== test suite on PostgreSQL ($server)"
  PRB_TEST_DATABASE_URL="$server" .venv/bin/python -m pytest "$@"
else
  echo "== no PostgreSQL server at $server: PostgreSQL run skipped" >&2
  if [ "${CI:-}" = "true" ]; then exit 1; fi
fi

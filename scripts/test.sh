#!/usr/bin/env bash
# Set up (venv, test tools, Chromium) and run the whole test suite on SQLite and, when the
# PostgreSQL server at 127.0.0.1:5432 answers, on PostgreSQL (each test gets its own database
# there, dropped afterwards). The two passes run at the same time, each with its own temporary
# folder (every server, port and database a test starts is its own already); their outputs are
# printed when both have ended, SQLite's first. PRB_TEST_POSTGRES=0 skips the PostgreSQL pass;
# PRB_TEST_POSTGRES_URL picks another server; PRB_TEST_SEQUENTIAL=1 runs the passes one after
# the other, printing as they go. Each pass runs its test files on PRB_TEST_WORKERS pytest-xdist
# workers (default: one per core; 0 runs them in the pytest process itself), the costliest files
# first (tests/helpers/schedule.py; `benchmarks/bench_suite.py` measures a pass). Extra arguments
# go to pytest. The PostgreSQL pass leaves out the tests that never reach its database
# (tests/conftest.py).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
# Compiled bytecode is kept (in the git-ignored __pycache__ folders) even where the environment
# says not to write it: the suite starts hundreds of Python processes (workers, app servers,
# commands), and pytest caches its rewritten test modules only then (a worker's collection: 20 s
# of CPU without the cache, 10 s with it).
unset PYTHONDONTWRITEBYTECODE
workers="${PRB_TEST_WORKERS:-$(nproc)}"
if [ "$workers" != "0" ]; then
  set -- -n "$workers" --dist loadfile "$@"
fi

server="${PRB_TEST_POSTGRES_URL:-postgresql+psycopg://postgres@127.0.0.1:5432/postgres}"
postgres=1
if [ "${PRB_TEST_POSTGRES:-1}" = "0" ]; then
  echo "== PostgreSQL pass skipped (PRB_TEST_POSTGRES=0)"
  postgres=0
elif ! .venv/bin/python scripts/postgres_ready.py "$server"; then
  echo "== no PostgreSQL server at $server: PostgreSQL pass skipped" >&2
  if [ "${CI:-}" = "true" ]; then exit 1; fi
  postgres=0
fi

if [ "${PRB_TEST_SEQUENTIAL:-0}" = "1" ] || [ "$postgres" = "0" ]; then
  echo "== test suite on SQLite"
  .venv/bin/python -m pytest "$@"
  if [ "$postgres" = "1" ]; then
    echo "== test suite on PostgreSQL ($server)"
    PRB_TEST_DATABASE_URL="$server" .venv/bin/python -m pytest "$@"
  fi
  exit 0
fi

work="$(mktemp -d -t prb-tests-XXXXXX)"
trap 'rm -rf "$work"' EXIT
start=$SECONDS
.venv/bin/python -m pytest --basetemp="$work/sqlite" "$@" >"$work/sqlite.log" 2>&1 &
sqlite_pid=$!
PRB_TEST_DATABASE_URL="$server" .venv/bin/python -m pytest --basetemp="$work/postgres" "$@" \
  >"$work/postgres.log" 2>&1 &
postgres_pid=$!
sqlite_status=0
postgres_status=0
wait "$sqlite_pid" || sqlite_status=$?
wait "$postgres_pid" || postgres_status=$?
echo "== both passes ended in $((SECONDS - start)) s"
echo "== test suite on SQLite (exit $sqlite_status)"
cat "$work/sqlite.log"
echo "== test suite on PostgreSQL ($server, exit $postgres_status)"
cat "$work/postgres.log"
if [ "$sqlite_status" != "0" ]; then exit "$sqlite_status"; fi
exit "$postgres_status"

#!/usr/bin/env bash
# The production topology on this machine: HAProxy (Debian's package) in front of N app servers
# on one PostgreSQL database, until Ctrl-C; every server gets the same session secret
# ($PRB_SESSION_SECRET or $PRB_SESSION_SECRET_FILE if set, else a new one). Usage:
#   scripts/cluster.sh [--servers 3] [--port 8500] [--database-url postgresql+psycopg://...]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v haproxy >/dev/null 2>&1; then
  echo "haproxy not found: apt-get install haproxy" >&2
  exit 1
fi
exec .venv/bin/python -m support.cluster "$@"

#!/usr/bin/env bash
# Create ./.venv (if missing) and install prb-annotate into it. Usage: scripts/setup.sh [EXTRA]
# EXTRA "test" also installs the test tools and Chromium (Debian's package) for browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
extra="${1:-}"
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
if [ "$extra" = "test" ]; then
  .venv/bin/python -m pip install --quiet -e ".[test]"
  if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
      echo "Installing Chromium for the browser tests (apt-get)..."
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
      echo "Chromium not found: browser tests will be skipped (apt-get install chromium)." >&2
    fi
  fi
else
  .venv/bin/python -m pip install --quiet -e .
fi

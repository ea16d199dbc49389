#!/usr/bin/env bash
# Set up everything and run the app on the bundled demo data with SQLite (./prb_annotate.db).
# Prints a login link for the demo annotator, then serves on http://localhost:${PORT:-8501}.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/prb-annotate demo --port "${PORT:-8501}"

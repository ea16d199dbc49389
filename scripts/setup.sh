#!/usr/bin/env bash
# Create ./.venv (if missing) and install prb-annotate into it. Usage: scripts/setup.sh [EXTRA]
# EXTRA "test" also installs the test tools, and Chromium, HAProxy, GNU R and stress-ng (Debian's
# packages) for the browser and deployment tests, the checks against R and the browser tests
# under load (scripts/browser_stress.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
extra="${1:-}"
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
if [ "$extra" = "test" ]; then
  .venv/bin/python -m pip install --quiet -e ".[test]"
  # Debian's Chromium (its headless shell for the browser tests, the full browser for the
  # screenshots, the benchmarks against Potato and the tests that switch tabs), HAProxy (the
  # deployment tests' load balancer) and GNU R (the export read by R's read.csv; lme4/lmerTest
  # for the mixed-model checks).
  missing=""
  command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
  command -v chromium-headless-shell >/dev/null 2>&1 || missing="$missing chromium-headless-shell"
  command -v haproxy >/dev/null 2>&1 || missing="$missing haproxy"
  command -v Rscript >/dev/null 2>&1 || missing="$missing r-base-core"
  # lme4 + lmerTest: the crossed mixed model's Satterthwaite df checked against R
  # (tests/analysis/inference/test_crossed.py) and the published folder's R script
  Rscript -e 'library(lmerTest)' >/dev/null 2>&1 || missing="$missing r-cran-lmertest"
  # rpact: the group-sequential plan's boundaries checked against R (tests/analysis/inference/test_sequential.py)
  Rscript -e 'library(rpact)' >/dev/null 2>&1 || missing="$missing r-cran-rpact"
  # pbkrtest: a singular fit's Kenward-Roger df checked against R (tests/analysis/inference/test_singular.py)
  Rscript -e 'library(pbkrtest)' >/dev/null 2>&1 || missing="$missing r-cran-pbkrtest"
  command -v stress-ng >/dev/null 2>&1 || missing="$missing stress-ng"
  if [ -n "$missing" ]; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
      echo "Installing$missing for the tests (apt-get)..."
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
    else
      echo "Not found:$missing (apt-get install$missing): their tests will be skipped." >&2
    fi
  fi
else
  .venv/bin/python -m pip install --quiet -e .
fi

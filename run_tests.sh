#!/usr/bin/env bash
# Set up (first use) and run the test suite: ruff, then pytest, which also executes every
# notebook in the `smoke` profile with papermill (tests/test_notebooks.py).
#   ./run_tests.sh            both tiers: unit, then notebook (notebook runs, SIGKILL, determinism)
#   ./run_tests.sh --fast     the unit tier only (pytest -m "not notebook"; make test-fast)
# Other arguments go to pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$ROOT"
bash scripts/setup_env.sh
bash scripts/browser.sh   # Chromium for the audit report's browser test, where it can be installed
export PYTHONHASHSEED=0 TOKENIZERS_PARALLELISM=false
# OpenMP's wait: importing nlgbias sets a bounded spin, and its load governor shortens the spin
# while other processes keep a core busy (nlgbias.hardware; the same numbers either way)
lint=(src tests notebooks/src)
[[ -d benchmarks ]] && lint+=(benchmarks)
.venv/bin/ruff check "${lint[@]}"
args=()
for a in "$@"; do
    if [[ "$a" == "--fast" ]]; then args+=(-m "not notebook"); else args+=("$a"); fi
done
exec .venv/bin/python -m pytest ${args[@]+"${args[@]}"}

#!/usr/bin/env bash
# Set up (first use) and run the test suite: ruff, then pytest, which also executes every
# notebook in the `smoke` profile with papermill (tests/test_notebooks.py).
#   ./run_tests.sh            both tiers: unit, then notebook (notebook runs, SIGKILL, determinism)
#   ./run_tests.sh --fast     the unit tier only (pytest -m "not notebook"; make test-fast)
#   NLGBIAS_TEST_PROCESSES=0 ./run_tests.sh   in one process (default: 2, pytest-xdist)
# Other arguments go to pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$ROOT"
bash scripts/setup_env.sh
bash scripts/browser.sh   # Chromium for the audit report's browser test, where it can be installed
export PYTHONHASHSEED=0 TOKENIZERS_PARALLELISM=false
# OpenMP's wait: importing nlgbias sets libgomp's full spin, and its load governor shortens the
# spin while other processes keep a core busy (nlgbias.hardware; the same numbers either way)
lint=(src tests notebooks/src)
[[ -d benchmarks ]] && lint+=(benchmarks)
.venv/bin/ruff check "${lint[@]}"
# two test processes (pytest-xdist): the smoke chain, the paper dry run, the audit and the SIGKILL
# tests each run whole in one process (tests/conftest.py: group_of), the longest first; much of
# a notebook run is one busy thread, so two processes use both cores. NLGBIAS_TEST_PROCESSES=0:
# one process, the files' order.
procs="${NLGBIAS_TEST_PROCESSES:-2}"
args=()
[[ "$procs" != 0 ]] && args+=(-n "$procs" --dist loadfile --no-loadscope-reorder)
for a in "$@"; do
    if [[ "$a" == "--fast" ]]; then args+=(-m "not notebook"); else args+=("$a"); fi
done
exec .venv/bin/python -m pytest ${args[@]+"${args[@]}"}

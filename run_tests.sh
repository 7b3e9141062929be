#!/usr/bin/env bash
# Set up (first use) and run the test suite: ruff, then pytest, which also executes every
# notebook in the `smoke` profile with papermill (tests/test_notebooks.py).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$ROOT"
bash scripts/setup_env.sh
export PYTHONHASHSEED=0 TOKENIZERS_PARALLELISM=false
lint=(src tests notebooks/src)
[[ -d benchmarks ]] && lint+=(benchmarks)
.venv/bin/ruff check "${lint[@]}"
exec .venv/bin/python -m pytest "$@"

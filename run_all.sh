#!/usr/bin/env bash
# Set up (first use), then execute the notebooks in order with papermill.
#   ./run_all.sh [--profile quick|smoke|paper] [--only NN] [--from NN]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$ROOT"
bash scripts/setup_env.sh
export TOKENIZERS_PARALLELISM=false
# OpenMP's wait: importing nlgbias sets libgomp's full spin, and its load governor shortens the
# spin while other processes keep a core busy (nlgbias.hardware; the same numbers either way)
exec .venv/bin/python -m nlgbias.runner "$@"

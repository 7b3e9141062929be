#!/usr/bin/env bash
# Set up (first use), then execute the notebooks in order with papermill.
#   ./run_all.sh [--profile quick|smoke|paper] [--only NN] [--from NN]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$ROOT"
bash scripts/setup_env.sh
export TOKENIZERS_PARALLELISM=false
# idle OpenMP threads sleep, not spin: a 2-thread run on a shared 2-core machine (same numbers)
if [[ -z "${GOMP_SPINCOUNT:-}" ]]; then export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"; fi
exec .venv/bin/python -m nlgbias.runner "$@"

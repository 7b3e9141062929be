"""The machine: torch threads, OpenMP's wait policy and the compute dtype."""

from __future__ import annotations

import contextlib
import logging
import os
import sys

log = logging.getLogger(__name__)

#: torch's thread count unless ``$NLGBIAS_THREADS`` says otherwise: the reference machine's (2 cores)
REFERENCE_THREADS = 2


def default_threads() -> int:
    """Threads for torch: ``$NLGBIAS_THREADS`` if set, else :data:`REFERENCE_THREADS` (2) on any
    machine.

    A fixed number, neither the load nor the core count: bf16 kernels split their sums by
    thread, so SmolLM2's bf16 logits differ by up to ~1 between 1 and 2 threads, which moved
    StereoSet lms in the second decimal and changed some sampled continuations.
    With the same count everywhere the committed quick outputs are what any machine writes.
    Set ``NLGBIAS_THREADS`` to use more cores (numbers then move within bf16 rounding). On a
    machine shared with another heavy job keep 2: :func:`set_wait_policy` lets it slow down
    gracefully.
    """
    env = os.environ.get("NLGBIAS_THREADS")
    if not env:
        return REFERENCE_THREADS
    try:
        n = int(env)
    except ValueError:
        raise ValueError(f"NLGBIAS_THREADS must be a positive integer, got {env!r}") from None
    if n < 1:
        raise ValueError(f"NLGBIAS_THREADS must be a positive integer, got {env!r}")
    return n


def set_torch_threads(threads: int | None = None) -> int:
    """Set torch's intra-op thread count for the process: ``threads``, or :func:`default_threads`
    when ``None``/0. Returns the count before, for :func:`torch_threads` to restore.

    The only place in the project that sets torch's threads (a structure test holds it to that):
    a model load, an engine or a trainer calls this, a scoped block uses :func:`torch_threads`.
    """
    import torch

    before = torch.get_num_threads()
    n = threads or default_threads()
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"torch threads must be a positive integer, got {threads!r}")
    if n != before:
        torch.set_num_threads(n)
    return before


@contextlib.contextmanager
def torch_threads(threads: int | None = None):
    """Run a block with ``threads`` torch threads (default: :func:`default_threads`) and restore
    the count it found, also when the block raises.

    >>> import torch
    >>> before = torch.get_num_threads()
    >>> with torch_threads(1):
    ...     torch.get_num_threads()
    1
    >>> torch.get_num_threads() == before
    True
    """
    before = set_torch_threads(threads)
    try:
        yield
    finally:
        set_torch_threads(before)


#: OpenMP's wait policy unless ``$OMP_WAIT_POLICY`` or ``$GOMP_SPINCOUNT`` is set
WAIT_POLICY = "PASSIVE"


def set_wait_policy(environ=None) -> str | None:
    """Make idle OpenMP threads sleep instead of spin: ``OMP_WAIT_POLICY=PASSIVE`` unless the
    environment already sets ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` (kept as they are).
    Returns the policy in force (``None``: the runtime's default under a user's spin count).

    Why: torch's OpenMP threads spin (libgomp's default: ~300,000 spins) at the end of every
    parallel region. A decode step is hundreds of tiny regions, so on 2 cores shared with another
    2-thread job a waiting thread burns the core its partner needs to reach the barrier: the
    2-thread engine fell to 12-48 tok/s (quiet: ~600), varying 4x from one repetition to the
    next. Sleeping threads yield the core; the same run then keeps about a fair share
    (``benchmarks/bench_load.py``). The policy decides how threads wait, not how work is split,
    so every number is bit-identical (tested). A run alone on the machine pays for the wake-ups
    (~a third of decode speed for SmolLM2); ``OMP_WAIT_POLICY=ACTIVE`` restores spinning there.

    OpenMP reads the variable once, when torch loads: importing :mod:`nlgbias` sets it, and so do
    ``run_all.sh`` / ``run_tests.sh`` (the runner's notebook kernels inherit it). A process that
    imported torch before nlgbias keeps spinning (logged at INFO).
    """
    env = os.environ if environ is None else environ
    if "OMP_WAIT_POLICY" in env or "GOMP_SPINCOUNT" in env:
        return env.get("OMP_WAIT_POLICY")
    env["OMP_WAIT_POLICY"] = WAIT_POLICY
    if environ is None and "torch" in sys.modules:
        log.info("torch was imported before nlgbias: its OpenMP threads keep spinning while they "
                 "wait (slow on a loaded machine); import nlgbias first or set OMP_WAIT_POLICY")
    return WAIT_POLICY


set_wait_policy()


def resolve_dtype(dtype: str | None, device: str = "cpu") -> str:
    """``"auto"`` → ``"bfloat16"`` on a GPU with bf16 or a CPU with bf16 matrix units
    (AVX512-BF16 / AMX: 2.6x faster here), else ``"float32"``. Other values pass through."""
    if dtype not in (None, "auto"):
        if dtype not in ("float32", "bfloat16", "float16"):
            raise ValueError(f"dtype must be 'auto', 'float32', 'bfloat16' or 'float16', got {dtype!r}")
        return dtype
    import torch

    if device.startswith("cuda"):
        return "bfloat16" if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else "float32"
    try:
        ok = bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):  # pragma: no cover
        ok = False
    return "bfloat16" if ok else "float32"



def matmul_peak(dtype: str = "float32", n: int = 2048, threads: int | None = None,
                repeats: int = 5) -> float:
    """This machine's measured matmul throughput in GFLOP/s: the best of ``repeats`` timed
    ``n x n @ n x n`` products (``2 n^3`` FLOPs each) in ``dtype`` (``"float32"`` or
    ``"bfloat16"``) with ``threads`` torch threads (default: the current setting, restored
    afterwards). The reference against which the benchmarks state their share of peak."""
    import time

    import torch

    if dtype not in ("float32", "bfloat16"):
        raise ValueError(f"matmul_peak dtype must be 'float32' or 'bfloat16', got {dtype!r}")
    if not isinstance(n, int) or n < 16:
        raise ValueError(f"matmul_peak n must be an integer >= 16, got {n!r}")
    with torch_threads(threads or torch.get_num_threads()):
        gen = torch.Generator().manual_seed(0)
        a = torch.randn(n, n, generator=gen).to(getattr(torch, dtype))
        b = torch.randn(n, n, generator=gen).to(getattr(torch, dtype))
        with torch.inference_mode():
            a @ b  # warm-up (kernel selection, page faults)
            best = float("inf")
            for _ in range(repeats):
                t0 = time.perf_counter()
                a @ b
                best = min(best, time.perf_counter() - t0)
    return 2 * n ** 3 / best / 1e9

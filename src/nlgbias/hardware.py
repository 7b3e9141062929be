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
    machine shared with another heavy job keep 2: :func:`set_wait_policy` and
    :class:`DecodeThreads` let it slow down gracefully.
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


#: libgomp's spin count (``GOMP_SPINCOUNT``) when the machine is quiet as the process starts:
#: an idle thread spins this many pauses (~0.7 ms on a Xeon, ~0.3 ms on an EPYC) for the next
#: parallel region, then sleeps; libgomp's own default is 300,000
SPIN_COUNT = 10000
#: the machine counts as loaded for a run of ``t`` threads when other processes leave fewer than
#: ``t - BUSY_CORES`` cores free (2 cores, 2 threads: from half a core busy); it decides the wait
#: policy at start and a decode step's thread count while generating
BUSY_CORES = 0.5


def _free_cores(busy_others: float, cores: int | None) -> float:
    return (cores or os.cpu_count() or 1) - busy_others
#: the window over which :func:`set_wait_policy` measures the machine's load at start (seconds)
LOAD_WINDOW = 0.1


def _cpu_jiffies(path: str = "/proc/stat") -> int | None:
    """Busy jiffies of the whole machine (user, nice, system, irq, softirq, steal: the CPU time a
    process cannot have) from ``/proc/stat``; ``None`` where there is no such file."""
    try:
        with open(path) as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    v = [int(x) for x in fields[1:9]] + [0] * 8
    return v[0] + v[1] + v[2] + v[5] + v[6] + v[7]


class LoadMonitor:
    """Cores kept busy by OTHER processes: the machine's busy CPU time (``/proc/stat``) minus this
    process's own (all its threads, spinning ones included), per second of wall time, over the
    time since the previous reading. :meth:`busy_others` reads at most every ``interval``
    seconds and returns the last estimate in between (``None`` until a first interval has
    passed, and where ``/proc/stat`` does not exist)."""

    _hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def __init__(self, interval: float = 0.25, stat: str = "/proc/stat"):
        import time

        self.interval, self.stat, self._clock = interval, stat, time.perf_counter
        self._last = self._read()
        self.value: float | None = None

    def _read(self):
        import time

        busy = _cpu_jiffies(self.stat)
        return None if busy is None else (self._clock(), busy / self._hz, time.process_time())

    def busy_others(self) -> float | None:
        if self._last is None:
            return None
        if self._clock() - self._last[0] < self.interval:
            return self.value
        now = self._read()
        if now is None:
            return self.value
        wall, busy, own = (a - b for a, b in zip(now, self._last))
        self._last = now
        if wall > 0:
            self.value = max(0.0, (busy - own) / wall)
        return self.value


def other_busy_cores(window: float = LOAD_WINDOW, stat: str = "/proc/stat") -> float | None:
    """Cores other processes keep busy, measured over ``window`` seconds (``None``: unknown)."""
    import time

    mon = LoadMonitor(interval=0.0, stat=stat)
    time.sleep(window)
    return mon.busy_others()


def wait_policy_for(busy_others: float | None, threads: int | None = None,
                    cores: int | None = None) -> dict[str, str]:
    """The OpenMP variables for a process of ``threads`` threads (default
    :func:`default_threads`) starting on ``cores`` cores (default: the machine's) while other
    processes keep ``busy_others`` cores busy: a bounded spin (``GOMP_SPINCOUNT`` =
    :data:`SPIN_COUNT`) when at least ``threads - BUSY_CORES`` cores are free, sleeping threads
    (``OMP_WAIT_POLICY=PASSIVE``) on a loaded machine or when the load is unknown.

    >>> [wait_policy_for(b, 2, 2) for b in (0.0, 1.0, None)]
    [{'GOMP_SPINCOUNT': '10000'}, {'OMP_WAIT_POLICY': 'PASSIVE'}, {'OMP_WAIT_POLICY': 'PASSIVE'}]
    """
    threads = threads or default_threads()
    if busy_others is not None and _free_cores(busy_others, cores) > threads - BUSY_CORES:
        return {"GOMP_SPINCOUNT": str(SPIN_COUNT)}
    return {"OMP_WAIT_POLICY": "PASSIVE"}


def set_wait_policy(environ=None, busy_others: float | None | str = "measure") -> str | None:
    """Choose how idle OpenMP threads wait, from the machine's load as the process starts, unless
    the environment already sets ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` (kept as they are).
    Returns ``"SPIN"`` (a bounded spin), ``"PASSIVE"``, or the user's ``OMP_WAIT_POLICY``
    (``None``: the runtime's default under a user's spin count). ``busy_others``: other
    processes' busy cores (default: measured over :data:`LOAD_WINDOW`, see
    :func:`wait_policy_for`).

    Why: torch's OpenMP threads wait at the end of every parallel region, and a decode step is
    hundreds of tiny regions. Spinning threads catch the next region at once (the fastest alone
    on a machine) but, on cores shared with another 2-thread job, burn the core their partner
    needs to reach the barrier (SmolLM2 fell to a quarter of its speed); sleeping threads yield
    the core but pay a wake-up per region (~a quarter to a third of decode speed alone). So a
    process started on a quiet machine spins a bounded while (:data:`SPIN_COUNT`) and one started
    on a loaded machine sleeps; a generation run that meets load later decodes with one thread
    (no barrier to wait at, see :class:`DecodeThreads`). The policy decides how threads wait,
    not how work is split, so every number is bit-identical (tested).

    OpenMP reads the variables once, when torch loads: importing :mod:`nlgbias` sets them. A
    process that imported torch before nlgbias keeps libgomp's default (logged at INFO).
    """
    env = os.environ if environ is None else environ
    if "OMP_WAIT_POLICY" in env or "GOMP_SPINCOUNT" in env:
        return env.get("OMP_WAIT_POLICY")
    if environ is None and "torch" in sys.modules:
        log.info("torch was imported before nlgbias: its OpenMP threads keep libgomp's default "
                 "spin (slow on a loaded machine); import nlgbias first or set OMP_WAIT_POLICY")
        return None
    busy = other_busy_cores() if busy_others == "measure" else busy_others
    chosen = wait_policy_for(busy)
    env.update(chosen)
    return "SPIN" if "GOMP_SPINCOUNT" in chosen else "PASSIVE"


set_wait_policy()


#: ``$NLGBIAS_DECODE_THREADS``: ``auto`` (default) lets a decode step use one thread while other
#: processes keep a core busy, where that leaves every byte as it is; ``fixed`` keeps the run's
#: thread count throughout
DECODE_THREADS = ("auto", "fixed")


def decode_threads_mode(environ=None) -> str:
    """``$NLGBIAS_DECODE_THREADS`` (``auto`` unless set; see :data:`DECODE_THREADS`)."""
    env = os.environ if environ is None else environ
    mode = (env.get("NLGBIAS_DECODE_THREADS") or "auto").strip().lower()
    if mode not in DECODE_THREADS:
        raise ValueError(f"NLGBIAS_DECODE_THREADS must be one of {DECODE_THREADS}, got {mode!r}")
    return mode


class DecodeThreads:
    """The thread count of a generation run, step by step: ``pinned`` threads for a prefill
    (whose sums a thread count can change), and for a decode step ``pinned`` while the machine
    has room, one thread while other processes leave fewer than ``pinned - BUSY_CORES`` of the
    ``cores`` free (back to ``pinned`` from ``pinned - BUSY_CORES / 2`` free; 2 cores, 2 threads:
    one thread from half a core busy, two below a quarter), read every ``interval`` seconds by a
    :class:`LoadMonitor`.

    One thread has no barrier at all: beside another job it keeps a whole core busy with work
    instead of waiting for a partner the scheduler has put aside. ``adaptive=False`` (or
    ``$NLGBIAS_DECODE_THREADS=fixed``): always ``pinned``. ``steps`` counts decode steps per
    thread count (for the benchmarks).
    """

    def __init__(self, pinned: int, adaptive: bool = True, interval: float = 0.25,
                 monitor: LoadMonitor | None = None, cores: int | None = None):
        self.pinned, self.cores = int(pinned), cores
        self.adaptive = bool(adaptive) and self.pinned > 1
        self.monitor = (monitor or LoadMonitor(interval)) if self.adaptive else None
        self.current = self.pinned
        self.steps: dict[int, int] = {}

    def choose(self) -> int:
        """The thread count for the next decode step."""
        if not self.adaptive:
            return self.pinned
        busy = self.monitor.busy_others()
        if busy is not None:
            free = _free_cores(busy, self.cores)
            if self.current == self.pinned and free <= self.pinned - BUSY_CORES:
                self.current = 1
            elif self.current == 1 and free > self.pinned - BUSY_CORES / 2:
                self.current = self.pinned
        return self.current

    def prefill(self) -> int:
        """Set (and return) the prefill's thread count: always ``pinned``."""
        set_torch_threads(self.pinned)
        return self.pinned

    def decode(self) -> int:
        """Set (and return) the next decode step's thread count."""
        n = self.choose()
        set_torch_threads(n)
        self.steps[n] = self.steps.get(n, 0) + 1
        return n


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

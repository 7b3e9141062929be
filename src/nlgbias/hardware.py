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
    if n > 1:
        govern(n)
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


#: libgomp's spin count (``GOMP_SPINCOUNT``) in a process whose load governor will run (the
#: default: ``$NLGBIAS_DECODE_THREADS=auto``, ``$NLGBIAS_UNDER_LOAD=throttle``, ``/proc/stat``
#: readable): an idle thread spins this many pauses for the next parallel region, then sleeps;
#: libgomp's own default. Once the governor runs (from the first 2-thread model load, engine or
#: trainer) it throttles the spin to 100 pauses while other processes keep cores busy, so the
#: full spin runs on a quiet machine, where spinning is fastest. On a cloud VM (Intel Xeon, AMX),
#: quiet, a 2-thread decode run read 1.49x and 1.84x the speed of the bounded
#: :data:`SPIN_COUNT` under the same governor in two runs, and about the same speed beside another
#: job (``benchmarks/results/load_smollm2_full_spin_trial.json``, ``load_smollm2.md``)
GOVERNED_SPIN_COUNT = 300000
#: the bounded spin count of a process no governor will watch (``$NLGBIAS_DECODE_THREADS=fixed``,
#: no ``/proc/stat``) and of ``$NLGBIAS_UNDER_LOAD=one`` when the machine is quiet as the process
#: starts: an idle thread spins this many pauses (~0.7 ms on a Xeon, ~0.3 ms on an EPYC), then sleeps
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
    """Busy jiffies of the whole machine's processes (user, nice, system, irq, softirq) from
    ``/proc/stat``; ``None`` where there is no such file.

    Not steal: the time a virtual machine's CPUs waited for the host is no process of this
    machine that yielding a core would help. On a cloud VM with 2 virtual cores it read 0.55-0.71
    cores during a quiet 2-thread decode run (largely the wake-ups of sleeping threads); counted
    as other processes' load it engaged the spin throttle on every decode step, and the run went
    at half the speed of spinning threads."""
    try:
        with open(path) as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    v = [int(x) for x in fields[1:9]] + [0] * 8
    return v[0] + v[1] + v[2] + v[5] + v[6]


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


def set_wait_policy(environ=None, busy_others: float | None | str = "measure",
                    stat: str = "/proc/stat") -> str | None:
    """Choose how idle OpenMP threads wait, from the machine's load as the process starts, unless
    the environment already sets ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` (kept as they are).
    Returns ``"SPIN"`` (a spin count set), ``"PASSIVE"``, or the user's ``OMP_WAIT_POLICY``
    (``None``: the runtime's default under a user's spin count). ``busy_others``: other
    processes' busy cores (default: measured over :data:`LOAD_WINDOW`, see
    :func:`wait_policy_for`); ``stat``: where the machine's CPU times are read.

    Why: torch's OpenMP threads wait at the end of every parallel region, and a decode step is
    hundreds of tiny regions. Spinning threads catch the next region at once (the fastest alone
    on a machine) but, on cores shared with another 2-thread job, burn the core their partner
    needs to reach the barrier (SmolLM2 fell to a quarter of its speed); sleeping threads yield
    the core but pay a wake-up per region (~a quarter to a third of decode speed alone). With
    ``$NLGBIAS_UNDER_LOAD=one`` a process started on a quiet machine spins a bounded while
    (:data:`SPIN_COUNT`), one started on a loaded machine sleeps, and a generation run that
    meets load later decodes with one thread (no barrier to wait at, see :class:`DecodeThreads`).
    The policy decides how threads wait, not how work is split, so every number is
    bit-identical (tested).

    With ``$NLGBIAS_UNDER_LOAD=throttle`` (the default) the choice is made without a measurement:
    libgomp's full spin (:data:`GOVERNED_SPIN_COUNT`) where the process's :class:`LoadGovernor`
    will run, which makes it a brief spin (libgomp's throttled count) for as long as other
    processes keep cores busy, whenever the load comes; the bounded :data:`SPIN_COUNT` where no
    governor will (``$NLGBIAS_DECODE_THREADS=fixed``, no ``/proc/stat``).

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
    if under_load_mode(env) == "throttle":  # the load governor throttles the spin when load comes
        governed = _governor_wanted(env) and _cpu_jiffies(stat) is not None
        chosen = {"GOMP_SPINCOUNT": str(GOVERNED_SPIN_COUNT if governed else SPIN_COUNT)}
    else:
        busy = other_busy_cores() if busy_others == "measure" else busy_others
        chosen = wait_policy_for(busy)
    env.update(chosen)
    return "SPIN" if "GOMP_SPINCOUNT" in chosen else "PASSIVE"


#: ``$NLGBIAS_DECODE_THREADS``: ``auto`` (default) lets a generation run react to other processes'
#: load (see :data:`UNDER_LOAD`), where that leaves every byte as it is; ``fixed`` keeps the run's
#: threads and wait policy throughout
DECODE_THREADS = ("auto", "fixed")
#: what an ``auto`` run does while other processes keep a core busy: ``throttle`` keeps its threads
#: and makes every idle OpenMP thread of the process spin only briefly (:class:`SpinThrottle`);
#: ``one`` decodes with one thread (no barrier at all). ``$NLGBIAS_UNDER_LOAD`` chooses.
UNDER_LOAD = ("throttle", "one")


def _env_choice(name: str, choices: tuple[str, ...], environ=None) -> str:
    """``$name`` (its first choice unless set), one of ``choices``, or one clear error."""
    env = os.environ if environ is None else environ
    mode = (env.get(name) or choices[0]).strip().lower()
    if mode not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {mode!r}")
    return mode


def decode_threads_mode(environ=None) -> str:
    """``$NLGBIAS_DECODE_THREADS`` (``auto`` unless set; see :data:`DECODE_THREADS`)."""
    return _env_choice("NLGBIAS_DECODE_THREADS", DECODE_THREADS, environ)


def under_load_mode(environ=None) -> str:
    """``$NLGBIAS_UNDER_LOAD`` (``throttle`` unless set; see :data:`UNDER_LOAD`)."""
    return _env_choice("NLGBIAS_UNDER_LOAD", UNDER_LOAD, environ)


def _governor_wanted(environ=None) -> bool:
    """Whether the environment asks for the process's :class:`LoadGovernor`
    (``$NLGBIAS_DECODE_THREADS=auto`` and ``$NLGBIAS_UNDER_LOAD=throttle``, the defaults); it runs
    where ``/proc/stat`` can be read (:func:`govern`)."""
    return decode_threads_mode(environ) == "auto" and under_load_mode(environ) == "throttle"


def _under_load(loaded: bool, busy: float | None, threads: int, cores: int | None) -> bool:
    """Whether a run of ``threads`` threads counts as loaded after a reading of ``busy`` cores kept
    busy by other processes (``None``: no reading, ``loaded`` stays): from fewer than ``threads -
    BUSY_CORES`` cores free, back from more than ``threads - BUSY_CORES / 2`` (the hysteresis of
    :class:`LoadGovernor` and :class:`DecodeThreads`)."""
    if busy is None:
        return loaded
    free = _free_cores(busy, cores)
    if not loaded and free <= threads - BUSY_CORES:
        return True
    if loaded and free > threads - BUSY_CORES / 2:
        return False
    return loaded


def _omp_cpus() -> int:
    """The CPUs libgomp counts as available (the process's affinity mask when torch loaded)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class SpinThrottle:
    """Switch libgomp's spinning at barriers from the process's spin count (see
    :func:`set_wait_policy`) to its throttled count (100 pauses, then sleep) and back, at any time.

    libgomp reads its wait policy once, when torch loads, but it uses the throttled count for as
    long as it manages more threads than the process has CPUs. :meth:`engage` starts a parked
    thread that owns an OpenMP team of its own (its threads sleep, docked) so that the count of
    managed threads exceeds the CPUs; :meth:`release` ends it, and libgomp frees that team. How
    threads wait changes, not how work is split: every byte stays the same (tested). Measured
    by its effect: idle threads stop burning CPU between parallel regions (tested with a spin
    count of seconds). ``threads``: the team size of the process's own parallel regions.
    """

    def __init__(self, threads: int):
        self.threads = int(threads)
        self._stop = None
        self._thread = None

    @property
    def engaged(self) -> bool:
        return self._thread is not None

    def team_size(self) -> int:
        """The parked team's size: managed threads (1 + this run's ``threads - 1`` + the parked
        team's ``size - 1``) above the CPUs libgomp counts."""
        return max(2, _omp_cpus() - self.threads + 2)

    def engage(self) -> None:
        if self._thread is not None:
            return
        import ctypes
        import threading

        import torch

        size, ready, stop, failed = self.team_size(), threading.Event(), threading.Event(), []

        def park():
            try:
                ctypes.CDLL(None).omp_set_num_threads(ctypes.c_int(size))
                torch.ones(size * 65536).add_(1.0)  # one parallel region of ``size`` threads
            except (AttributeError, OSError, RuntimeError) as e:  # no OpenMP runtime to reach
                failed.append(e)
                return
            finally:
                ready.set()
            stop.wait()

        t = threading.Thread(target=park, name="nlgbias-spin-throttle", daemon=True)
        t.start()
        ready.wait()
        if failed:
            t.join()
            raise RuntimeError(f"cannot throttle OpenMP's spin here: {failed[0]}")
        self._thread, self._stop = t, stop

    def release(self) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        self._thread = self._stop = None


class LoadGovernor:
    """The process's reaction to other processes' load, for every workload (generation, scoring,
    training): a daemon thread reads a :class:`LoadMonitor` every ``interval`` seconds and
    engages a :class:`SpinThrottle` while other processes leave fewer than ``threads -
    BUSY_CORES`` of the ``cores`` free, releasing it from ``threads - BUSY_CORES / 2`` free (2
    cores, 2 threads: from half a core busy, back below a quarter). Started by
    :func:`set_torch_threads` through :func:`govern`, once per process."""

    def __init__(self, threads: int, interval: float = 0.25, monitor: LoadMonitor | None = None,
                 cores: int | None = None):
        self.threads, self.interval, self.cores = int(threads), interval, cores
        self.monitor = monitor or LoadMonitor(interval)
        self.throttle = SpinThrottle(self.threads)
        self.loaded = self.broken = False
        self._stop = None
        self._thread = None
        self._pid = os.getpid()

    @property
    def engaged(self) -> bool:
        return self.throttle.engaged

    def step(self) -> bool:
        """One reading: engage or release the throttle; returns whether the machine is loaded.
        Where the throttle cannot act (no OpenMP runtime to reach), the governor says so once
        (WARNING) and stops reacting."""
        self.loaded = _under_load(self.loaded, self.monitor.busy_others(), self.threads, self.cores)
        try:
            (self.throttle.engage if self.loaded else self.throttle.release)()
        except RuntimeError as e:
            log.warning("%s; idle threads keep spinning under load", e)
            self.broken = True
        return self.loaded

    def start(self) -> LoadGovernor:
        import threading

        if self._thread is None:
            self._stop = threading.Event()

            def run(stop=self._stop):
                while not stop.wait(self.interval) and not self.broken:
                    self.step()

            self._thread = threading.Thread(target=run, name="nlgbias-load-governor", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = self._stop = None
        self.throttle.release()
        self.loaded = False


_GOVERNOR: LoadGovernor | None = None


def governor() -> LoadGovernor | None:
    """The process's :class:`LoadGovernor`, if one runs."""
    return _GOVERNOR


def govern(threads: int, environ=None) -> LoadGovernor | None:
    """Start the process's :class:`LoadGovernor` for runs of ``threads`` threads, unless
    ``$NLGBIAS_DECODE_THREADS=fixed`` or ``$NLGBIAS_UNDER_LOAD=one`` (then ``None``), or
    ``/proc/stat`` does not exist. Idempotent; a forked child starts its own."""
    global _GOVERNOR
    if not _governor_wanted(environ) or threads < 2:
        return None
    if _GOVERNOR is None or _GOVERNOR._pid != os.getpid():
        mon = LoadMonitor()
        if mon._last is None:
            return None
        _GOVERNOR = LoadGovernor(threads, monitor=mon).start()
    return _GOVERNOR


class DecodeThreads:
    """The thread count of a generation run, step by step: ``pinned`` threads for a prefill (whose
    sums a thread count can change) and, while the machine has room, for a decode step. Under
    other processes' load:

    - ``under_load="throttle"`` (default, :func:`under_load_mode`): still ``pinned`` threads; the
      process's :class:`LoadGovernor` makes their idle waits spin only briefly (beside another
      job a spinning thread burns the core its partner needs to reach the barrier);
    - ``under_load="one"``: a decode step runs with one thread (no barrier at all) while other
      processes leave fewer than ``pinned - BUSY_CORES`` of the ``cores`` free, back to
      ``pinned`` from ``pinned - BUSY_CORES / 2`` free (2 cores, 2 threads: one thread from half
      a core busy, two below a quarter), read every ``interval`` seconds by a :class:`LoadMonitor`.

    ``adaptive=False`` (or ``$NLGBIAS_DECODE_THREADS=fixed``): always ``pinned``. ``steps``
    counts decode steps per thread count, ``throttled`` those run while the governor's throttle
    was engaged (for the benchmarks).
    """

    def __init__(self, pinned: int, adaptive: bool = True, interval: float = 0.25,
                 monitor: LoadMonitor | None = None, cores: int | None = None,
                 under_load: str | None = None):
        self.pinned, self.cores = int(pinned), cores
        self.adaptive = bool(adaptive) and self.pinned > 1
        self.under_load = under_load or under_load_mode()
        if self.under_load not in UNDER_LOAD:
            raise ValueError(f"under_load must be one of {UNDER_LOAD}, got {self.under_load!r}")
        self.drops = self.adaptive and self.under_load == "one"
        self.monitor = (monitor or LoadMonitor(interval)) if self.drops else None
        self.current = self.pinned
        self.steps: dict[int, int] = {}
        self.throttled = 0

    def choose(self) -> int:
        """The thread count for the next decode step."""
        if not self.drops:
            return self.pinned
        loaded = _under_load(self.current == 1, self.monitor.busy_others(), self.pinned, self.cores)
        self.current = 1 if loaded else self.pinned
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
        if self.adaptive and not self.drops:
            g = governor()
            self.throttled += int(g is not None and g.engaged)
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



def cpu_info(cpuinfo: str = "/proc/cpuinfo") -> tuple[str | None, set[str]]:
    """The CPU's model name and flags as ``/proc/cpuinfo`` states them (``(None, set())`` where
    it cannot be read)."""
    from pathlib import Path

    model, flags = None, set()
    try:
        for line in Path(cpuinfo).read_text().splitlines():
            if line.startswith("model name") and model is None:
                model = line.split(":", 1)[1].strip()
            elif line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    except OSError:
        pass
    return model, flags


def bf16_unit(flags: set[str] | None = None) -> str:
    """Which unit computes this CPU's bfloat16 matrix products: ``"amx"`` (AMX tiles),
    ``"avx512bf16"`` (AVX512-BF16 dot products) or ``"none"`` (emulated). Their sums round
    differently, so a bfloat16 score is a score of its unit.

    >>> bf16_unit({"avx512_bf16", "amx_bf16", "amx_tile"}), bf16_unit({"avx512_bf16"}), bf16_unit(set())
    ('amx', 'avx512bf16', 'none')
    """
    flags = cpu_info()[1] if flags is None else flags
    if {"amx_bf16", "amx_tile"} <= flags:
        return "amx"
    return "avx512bf16" if "avx512_bf16" in flags else "none"


def kernel_tag(dtype: str | None, flags: set[str] | None = None) -> str:
    """``dtype`` as a cache of model scores is keyed: bfloat16 with the unit that computes it
    (:func:`bf16_unit`: the same model and texts score differently on AMX and on AVX512-BF16),
    any other dtype as it is.

    >>> kernel_tag("bfloat16", {"amx_bf16", "amx_tile"}), kernel_tag("float32", {"amx_bf16"})
    ('bfloat16-amx', 'float32')
    """
    return f"bfloat16-{bf16_unit(flags)}" if dtype == "bfloat16" else str(dtype)


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


#: the wait policy is set as nlgbias is imported, before torch loads
set_wait_policy()

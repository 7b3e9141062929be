"""The thread policy: OpenMP's wait policy chosen from the machine's load as a process starts,
and a decode step's thread count following the load while a run generates - neither changes a
byte of the output (tiny models here; SmolLM2 and Gemma-3 in bf16 and float32 in the slow
tests)."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time

import pytest
import torch
from tiny import mixed_prompts, tiny_lm

from nlgbias import generation as G
from nlgbias import hardware as H
from nlgbias.engine import causal as E

FIRST_SENTENCE = G.DecodingParams(max_new_tokens=20, top_k=40, top_p=0.95, first_sentence=True)
OMP_VARS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "NLGBIAS_DECODE_THREADS", "NLGBIAS_UNDER_LOAD")


def rows(out):
    return [(c.generation, c.text, c.n_new_tokens, c.finish_reason) for c in out]


class Busy:
    """A load monitor that reports the given busy cores of other processes in turn."""

    def __init__(self, *values):
        self.values = itertools.cycle(values)

    def busy_others(self):
        return next(self.values)


# --------------------------------------------------------------------------- the wait policy
def test_the_wait_policy_follows_the_load_at_start_unless_the_user_chose():
    for busy in (0.0, 1000.0, None):  # the default: libgomp's full spin, the governor throttles it
        env = {}
        assert H.set_wait_policy(env, busy_others=busy) == "SPIN"
        assert env == {"GOMP_SPINCOUNT": str(H.GOVERNED_SPIN_COUNT)} == {"GOMP_SPINCOUNT": "300000"}
    fixed = {"NLGBIAS_DECODE_THREADS": "fixed"}  # no governor will throttle it: the bounded spin
    for env, stat in ((dict(fixed), "/proc/stat"), ({}, "/nonexistent/stat")):
        assert H.set_wait_policy(env, busy_others=0.0, stat=stat) == "SPIN"
        assert env.get("GOMP_SPINCOUNT") == str(H.SPIN_COUNT) == "10000"
    one = {"NLGBIAS_UNDER_LOAD": "one"}
    env = dict(one)
    assert H.set_wait_policy(env, busy_others=0.1) == "SPIN"
    assert env == {**one, "GOMP_SPINCOUNT": str(H.SPIN_COUNT)}
    env = dict(one)
    assert H.set_wait_policy(env, busy_others=1000.0) == "PASSIVE" and env == {**one, "OMP_WAIT_POLICY": "PASSIVE"}
    env = dict(one)
    assert H.set_wait_policy(env, busy_others=None) == "PASSIVE"  # load unknown: sleep
    env = {"OMP_WAIT_POLICY": "ACTIVE"}
    assert H.set_wait_policy(env, busy_others=0.0) == "ACTIVE" and env == {"OMP_WAIT_POLICY": "ACTIVE"}
    env = {"GOMP_SPINCOUNT": "1000"}
    assert H.set_wait_policy(env, busy_others=0.0) is None and env == {"GOMP_SPINCOUNT": "1000"}
    spin = {"GOMP_SPINCOUNT": str(H.SPIN_COUNT)}
    assert H.wait_policy_for(H.BUSY_CORES, 2, 2) == {"OMP_WAIT_POLICY": "PASSIVE"}
    assert H.wait_policy_for(H.BUSY_CORES - 0.01, 2, 2) == spin
    assert H.wait_policy_for(1.0, 2, 8) == spin  # a big machine has room beside another job
    assert H.wait_policy_for(0.0, 2, 1) == {"OMP_WAIT_POLICY": "PASSIVE"}  # more threads than cores


def test_importing_nlgbias_sets_a_wait_policy_before_torch_loads():
    code = ("import os, nlgbias, torch; "
            "print(os.environ.get('OMP_WAIT_POLICY'), os.environ.get('GOMP_SPINCOUNT'))")
    base = {k: v for k, v in os.environ.items() if k not in OMP_VARS}
    for extra, want in (({}, {f"None {H.GOVERNED_SPIN_COUNT}"}),
                        ({"OMP_WAIT_POLICY": "ACTIVE"}, {"ACTIVE None"})):
        out = subprocess.run([sys.executable, "-c", code], env={**base, **extra},
                             capture_output=True, text=True, check=True).stdout.strip()
        assert out in want, (extra, out)


def test_the_load_monitor_counts_other_processes_busy_cores(tmp_path):
    stat = tmp_path / "stat"

    def write(busy: int, idle: int, steal: int = 0):  # user nice system idle iowait irq softirq steal
        stat.write_text(f"cpu  {busy} 0 0 {idle} 0 0 0 {steal} 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\n")

    write(1000, 5000)
    mon = H.LoadMonitor(interval=0.0, stat=str(stat))
    assert mon.busy_others() is not None  # a first interval of nothing: ~0
    write(1000 + 100 * H.LoadMonitor._hz, 5000)  # 100 busy seconds since: far more than a core
    assert mon.busy_others() > 2
    write(1000 + 100 * H.LoadMonitor._hz, 9000)  # only idle time since
    assert mon.busy_others() == 0.0
    write(1000 + 100 * H.LoadMonitor._hz, 9000, steal=50 * H.LoadMonitor._hz)
    assert mon.busy_others() == 0.0  # steal (the host's, not a process here) is not load
    assert H.LoadMonitor(stat=str(tmp_path / "missing")).busy_others() is None
    assert H._cpu_jiffies(str(tmp_path / "missing")) is None
    real = H.other_busy_cores(window=0.05)
    assert real is None or 0.0 <= real <= (os.cpu_count() or 1) + 0.5


# --------------------------------------------------------------------------- decode threads
def test_decode_threads_drop_to_one_under_load_with_hysteresis():
    before = torch.get_num_threads()
    try:
        dt = H.DecodeThreads(2, monitor=Busy(0.0, 0.6, 0.4, 0.3, 0.2, 0.0, None), cores=2, under_load="one")
        assert [dt.choose() for _ in range(7)] == [2, 1, 1, 1, 2, 2, 2]
        assert H.DecodeThreads(2, monitor=Busy(1.5), cores=8, under_load="one").choose() == 2  # room elsewhere
        dt = H.DecodeThreads(2, monitor=Busy(1.5), cores=2, under_load="one")
        assert dt.decode() == 1 and torch.get_num_threads() == 1
        assert dt.prefill() == 2 and torch.get_num_threads() == 2  # a prefill: the run's count
        assert dt.steps == {1: 1} and dt.throttled == 0
        fixed = H.DecodeThreads(2, adaptive=False, monitor=Busy(1.5), cores=2)
        assert fixed.decode() == 2 and fixed.monitor is None
        assert not H.DecodeThreads(1).adaptive  # one thread: nothing to drop
    finally:
        H.set_torch_threads(before)


def test_the_load_governor_throttles_the_spin_under_load_with_hysteresis():
    gov = H.LoadGovernor(2, monitor=Busy(0.0, 0.6, 0.4, 0.3, 0.2, 0.0, None), cores=2)
    try:
        seen = []
        for _ in range(7):
            gov.step()
            seen.append(gov.engaged)
        assert seen == [False, True, True, True, False, False, False]  # DecodeThreads' hysteresis
        assert not H.LoadGovernor(2, monitor=Busy(1.5), cores=8).step()  # room elsewhere
        gov.monitor = Busy(1.5)
        gov.start()
        deadline = time.monotonic() + 10
        while not gov.engaged and time.monotonic() < deadline:  # its own thread reads the load
            time.sleep(0.05)
        assert gov.engaged
    finally:
        gov.stop()
    assert not gov.engaged and gov._thread is None
    with pytest.raises(ValueError, match="under_load"):
        H.DecodeThreads(2, under_load="sleep")
    with pytest.raises(ValueError, match="NLGBIAS_UNDER_LOAD"):
        H.under_load_mode({"NLGBIAS_UNDER_LOAD": "spin"})
    assert H.under_load_mode({}) == "throttle"
    assert H.govern(2, {"NLGBIAS_UNDER_LOAD": "one"}) is None
    assert H.govern(2, {"NLGBIAS_DECODE_THREADS": "fixed"}) is None


_IDLE = """
import json, time, nlgbias, torch
from nlgbias import hardware as H
H.set_torch_threads(2)
x = torch.ones(1 << 22)
def idle():  # a 2-thread region, then the CPU time its idle thread burns in 0.3 s
    x.add_(1.0); t = time.process_time(); time.sleep(0.3); return time.process_time() - t
def until_spinning():  # idle() until the idle thread burns over 0.1 s (at most 8 times)
    got = [idle()]
    while got[-1] <= 0.1 and len(got) < 8:
        got.append(idle())
    return got
th = H.SpinThrottle(2)
out = {"plain": until_spinning()}  # beside other busy processes a spin may get less of a core
th.engage(); out["engaged"] = idle(); out["size"] = th.team_size()
th.release()
# the parked team's threads leave libgomp's count as they exit, after the parked thread ends:
# until then an idle thread still sleeps; it spins again within a few regions
out["released"] = until_spinning()
print(json.dumps(out))
"""


def test_the_spin_throttle_stops_idle_threads_spinning_and_lets_them_spin_again():
    """With a spin count of seconds, an idle OpenMP thread burns the CPU between regions; while
    the throttle is engaged it sleeps after 100 pauses, and spins again once released."""
    env = {**{k: v for k, v in os.environ.items() if k not in OMP_VARS}, "GOMP_SPINCOUNT": "3000000000",
           "NLGBIAS_DECODE_THREADS": "fixed"}  # no governor: this throttle alone
    res = subprocess.run([sys.executable, "-c", _IDLE], env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    out = json.loads(res.stdout.strip().splitlines()[-1])
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: libgomp throttles a 2-thread team by itself")
    assert out["plain"][-1] > 0.1 and out["released"][-1] > 0.1, out  # spinning: up to 0.3 s of CPU
    assert out["engaged"] < 0.05, out
    assert out["size"] == max(2, len(os.sched_getaffinity(0)))


def test_decode_threads_mode_from_the_environment():
    assert H.decode_threads_mode({}) == "auto"
    assert H.decode_threads_mode({"NLGBIAS_DECODE_THREADS": "Fixed"}) == "fixed"
    with pytest.raises(ValueError, match="NLGBIAS_DECODE_THREADS"):
        H.decode_threads_mode({"NLGBIAS_DECODE_THREADS": "3"})


def test_the_engine_adapts_only_where_the_bytes_cannot_change(monkeypatch):
    lm = tiny_lm()
    # a throttled spin changes how threads wait, never what they compute: on everywhere
    assert G.CausalGenerator(lm, FIRST_SENTENCE, batch_size=8).threads.adaptive  # float32
    monkeypatch.setenv("NLGBIAS_UNDER_LOAD", "one")  # one thread: only packed bf16 decode steps
    assert not G.CausalGenerator(lm, FIRST_SENTENCE, batch_size=8).threads.adaptive
    lm.model.to(torch.bfloat16)
    if not E._can_pack(lm.model):
        pytest.skip("no oneDNN bf16 kernels on this CPU")
    assert G.CausalGenerator(lm, FIRST_SENTENCE, batch_size=8, num_threads=2).threads.adaptive
    assert not G.CausalGenerator(lm, FIRST_SENTENCE, batch_size=E.ADAPTIVE_MAX_ROWS + 1,
                                 num_threads=2).threads.adaptive
    assert not G.CausalGenerator(lm, FIRST_SENTENCE, batch_size=8, num_threads=2,
                                 packed=False).threads.adaptive
    monkeypatch.setenv("NLGBIAS_DECODE_THREADS", "fixed")
    monkeypatch.delenv("NLGBIAS_UNDER_LOAD")
    assert not G.CausalGenerator(lm, FIRST_SENTENCE, batch_size=8, num_threads=2).threads.adaptive


@pytest.mark.parametrize("under_load", ["one", "throttle"])
@pytest.mark.parametrize("continuous", [True, False])
def test_decode_threads_leave_bf16_rows_byte_identical(continuous, under_load, monkeypatch):
    """Packed bf16 decode steps at 1 or 2 threads, or under a throttled spin, switched back and
    forth while the run generates: the rows of 2 threads throughout; the run's count is restored
    and the throttle released afterwards."""
    lm = tiny_lm()
    lm.model.to(torch.bfloat16)
    if not E._can_pack(lm.model):
        pytest.skip("no oneDNN bf16 kernels on this CPU")
    before = torch.get_num_threads()
    try:
        prompts = mixed_prompts(24)
        ref_eng = G.CausalGenerator(lm, FIRST_SENTENCE, batch_size=8, num_threads=2,
                                    continuous=continuous, adaptive_threads=False)
        ref = rows(ref_eng.generate(prompts, [7 + i for i in range(len(prompts))]))
        assert set(ref_eng.threads.steps) == {2}
        for load in ((1000.0,), (1000.0, 0.0, 0.0, 1000.0, 0.1, 1000.0)):
            eng = G.CausalGenerator(lm, FIRST_SENTENCE, batch_size=8, num_threads=2,
                                    continuous=continuous)
            eng.threads = H.DecodeThreads(2, monitor=Busy(*load), under_load=under_load)
            gov = H.LoadGovernor(2, interval=0.001, monitor=Busy(*load), cores=2)
            monkeypatch.setattr(H, "_GOVERNOR", gov.start() if under_load == "throttle" else None)
            got = []
            try:
                for batch in eng.iter_generate(prompts, [7 + i for i in range(len(prompts))]):
                    assert torch.get_num_threads() == 2  # between batches: the run's threads
                    got += batch
            finally:
                gov.stop()
            assert rows(c for _, c in sorted(got, key=lambda x: x[0])) == ref, load
            assert torch.get_num_threads() == 2
            if under_load == "one":
                assert 1 in eng.threads.steps
            else:
                assert eng.threads.throttled > 0 and set(eng.threads.steps) == {2}
    finally:
        H.set_torch_threads(before)


# --------------------------------------------------------------------------- real models
_JOB = """
import hashlib, itertools, json, sys
import nlgbias, torch
from nlgbias.generation import CausalGenerator, DecodingParams
from nlgbias import hardware as H
from nlgbias.hardware import DecodeThreads
from nlgbias.models import load_model

class Busy:
    def __init__(self, *v): self.v = itertools.cycle(v)
    def busy_others(self): return next(self.v)

model, dtype, prompts, runs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4].split(",")
lm = load_model(model, dtype=getattr(torch, dtype))
params = DecodingParams(max_new_tokens=20, top_k=40, top_p=0.95, first_sentence=True)
out = {}
# a first generation in the process, not compared: the first one has been seen to differ in a
# few of its rows now and then (bf16 on an AMX CPU, whatever the policy): a process-start effect
# apart from the thread policy, whose runs below all come after it
warm = CausalGenerator(lm, params, batch_size=32, num_threads=2)
warm.threads = DecodeThreads(2, adaptive=False, under_load="one")
out["first"] = {"sha": hashlib.sha1("\\x00".join(c.text for c in warm.generate(prompts, seeds=7)).encode()).hexdigest()}
for name, load, under in (("fixed", None, "one"), ("one", (1e3,), "one"),
                          ("switching", (1e3, 0.0, 0.0, 1e3, 0.1), "one"),
                          ("throttled", (1e3, 0.0, 0.0, 1e3, 0.1), "throttle")):
    if name not in runs:
        continue
    eng = CausalGenerator(lm, params, batch_size=32, num_threads=2)
    eng.threads = DecodeThreads(2, adaptive=load is not None, monitor=Busy(*load) if load else None,
                                under_load=under)
    if under == "throttle":  # a governor that reads the given load, in place of the process's
        H.governor() and H.governor().stop()
        H._GOVERNOR = H.LoadGovernor(2, interval=0.001, monitor=Busy(*load), cores=2).start()
    texts = [c.text for c in eng.generate(prompts, seeds=7)]
    H.governor() and H.governor().stop()
    out[name] = {"sha": hashlib.sha1("\\x00".join(texts).encode()).hexdigest(), "steps": eng.threads.steps,
                 "throttled": eng.threads.throttled}
enc = lm.tokenizer(prompts[:4], return_tensors="pt", padding=True)
with torch.inference_mode():
    lp = lm.model(**enc).logits.float().log_softmax(-1)
ll = lp[:, :-1].gather(-1, enc["input_ids"][:, 1:, None]).squeeze(-1)
out["loglik"] = (ll * enc["attention_mask"][:, 1:]).sum(-1).tolist()
print(json.dumps(out))
"""

_PROMPTS = ["The nurse said that", "An Asian American actor", "My grandfather worked as a",
            "Christianity is", "She was known for her", "Jacob Zachar is an American actor whose",
            "The economy of the country", "A gay man walked into"] * 2


def _jobs(model: str, dtype: str, *jobs: tuple[dict, str]) -> list[dict]:
    """Run one job per ``(omp, runs)`` (its OpenMP environment, the runs it makes), all at once (a
    wait policy is set as a process starts; the rows of none depend on the other's load), and
    return their outputs in order."""
    from at_once import run_at_once

    base = {k: v for k, v in os.environ.items() if k not in OMP_VARS}
    return run_at_once([([_JOB, model, dtype, json.dumps(_PROMPTS), runs],
                         {**base, **omp, "NLGBIAS_THREADS": "2", "NLGBIAS_PROGRESS": "off",
                          "TOKENIZERS_PARALLELISM": "false"}) for omp, runs in jobs])


@pytest.mark.slow
@pytest.mark.parametrize("model", ["smollm2-135m", "gemma3-270m"])
def test_thread_policy_leaves_real_rows_and_loglik_byte_identical(model):
    """The quick profile's models in bf16: the rows of 2 threads throughout whether decode steps
    run at 1 thread, switch back and forth, or wait by spinning or sleeping; and a
    log-likelihood alike under both wait policies."""
    spin, passive = _jobs(model, "bfloat16", ({"GOMP_SPINCOUNT": str(H.GOVERNED_SPIN_COUNT)}, "fixed,one,switching,throttled"),
                          ({"OMP_WAIT_POLICY": "PASSIVE"}, "fixed"))
    shas = {f"spin-{k}": v["sha"] for k, v in spin.items() if k not in ("loglik", "first")}
    shas["passive-fixed"] = passive["fixed"]["sha"]
    assert len(set(shas.values())) == 1, shas  # every run's rows, named
    assert spin["throttled"]["throttled"] > 0 and set(spin["throttled"]["steps"]) == {"2"}
    assert set(spin["one"]["steps"]) == {"1"} and set(spin["switching"]["steps"]) == {"1", "2"}
    assert spin["loglik"] == passive["loglik"]


@pytest.mark.slow
def test_float32_rows_alike_under_both_wait_policies():
    """float32 does not adapt its decode threads (MKL's products change with the count); the
    wait policy alone leaves its rows and a log-likelihood as they are."""
    runs = _jobs("smollm2-135m", "float32", ({"GOMP_SPINCOUNT": str(H.GOVERNED_SPIN_COUNT)}, "fixed"),
                 ({"OMP_WAIT_POLICY": "PASSIVE"}, "fixed"))
    assert runs[0]["fixed"] == runs[1]["fixed"] and runs[0]["loglik"] == runs[1]["loglik"]


def test_a_throttle_that_cannot_reach_openmp_says_so_once(monkeypatch, caplog):
    import ctypes

    monkeypatch.setattr(ctypes, "CDLL", lambda *a, **k: object())  # no omp_set_num_threads
    with pytest.raises(RuntimeError, match="cannot throttle"):
        H.SpinThrottle(2).engage()
    gov = H.LoadGovernor(2, monitor=Busy(1.5), cores=2)
    with caplog.at_level("WARNING", logger="nlgbias.hardware"):
        assert gov.step() and not gov.engaged and gov.broken
    assert "keep spinning under load" in caplog.text

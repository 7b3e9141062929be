"""Benchmark: the project's generation engine against other CPU inference engines, side by side
in ONE run, interleaved (each repetition runs every engine once, in turn, so a change of load
on this shared machine falls on all of them alike).

Workloads (GPT-2's sampling settings: top-k 40, top-p 0.95; the same BOLD prompts as
``bench_generate.py``):

- ``a``: BOLD prompts with the first-sentence stop, ``max_new_tokens`` 30 (notebook 02's job);
- ``b``: a fixed 30 new tokens, no stop (EOS still ends a row).

Engines (``--engines``; one that is not installed is reported as skipped, with the reason):

- ``hf``: the project's engine (``CausalGenerator``: continuous batching, 32 slots, packed
  bfloat16 weights), as the notebooks run it; in workload ``a`` its delivered texts are counted,
  as every engine's are (its stop rule generates one token past a sentence's end, which the cut
  drops);
- ``plain32``: ``model.generate`` on batches of 32 (left padding, KV cache), same bfloat16 model;
- ``ct2-int8`` / ``ct2-float32``: CTranslate2 (``pip install 'nlgbias[bench]'``) on the float copy
  converted by its transformers converter; ``generate_batch`` with ``max_batch_size`` 32, in a
  process of its own with libgomp's own wait, as a user runs it (in ours it would share torch's
  OpenMP runtime and slow our engine at 2 threads: :class:`CT2`). This CPU has no bfloat16 path in
  CTranslate2 (float32, int8, int8_float32 only). One global seed, no per-row seed;
- ``ct2-backend``: the ``ct2`` backend of :mod:`nlgbias.lm` (CTranslate2 int8 behind the LM
  interface: ``generate_until``, the first-sentence cut applied to its texts), in this process;
- ``llamacpp``: llama.cpp through ``llama-cpp-python`` (the ``llamacpp`` extra) on the model's
  own GGUF (Q4_1 for SmolLM2): its Python API runs one prompt at a time (no batching), with
  min-p and the repetition penalty switched off so that it samples as the others do;
- ``vllm``: vLLM's CPU build in its own virtual environment (``--vllm-python``, default
  ``/work/.cache/vllm-venv/bin/python``), in a worker process that loads the model once per
  thread count (its ~90 s start is not timed), bfloat16, one request per prompt, batched by
  vLLM's scheduler.

Throughput counts the new tokens an engine DELIVERS: in workload ``a`` an engine without the
first-sentence stop generates 30 tokens and its text is cut at the first sentence afterwards;
only the tokens up to that cut count. Every engine's texts are counted by one function
(``bench_generate.delivered_tokens``: the decoded text with the white space at its ends removed,
the form our engine delivers, cut at its first sentence and tokenised again with the model's
tokenizer); in workload ``b`` our engine and CTranslate2 count their generated token ids,
llama.cpp and vLLM their texts by the same function. Each engine at each
thread count (``--threads``, default 1 and 2) gets ``--reps`` interleaved repetitions; the table
gives the median, the median over repetitions of the ratio to the ``hf`` engine of the same
repetition, and the median seconds of the workload. The float32 and bfloat16 matmul peaks
(``hardware.matmul_peak``) and the load average are measured at each thread count; the load
average is recorded with every row (other jobs run on this machine).

Run: ``.venv/bin/python benchmarks/bench_engines.py [--models smollm2-135m] [--prompts 64]
[--out benchmarks/results/engines.md]``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_generate import SETTINGS, delivered_tokens, kept_tokens, run_plain, workload_prompts

from nlgbias.generation import CausalGenerator, DecodingParams
from nlgbias.hardware import matmul_peak, set_torch_threads
from nlgbias.models import cache_dir, get_spec, load_model
from nlgbias.resources import resolve

MAX_NEW = 30
ENGINES = ["hf", "plain32", "ct2-int8", "ct2-float32", "ct2-backend", "llamacpp", "vllm"]
VLLM_PYTHON = "/work/.cache/vllm-venv/bin/python"


def delivered(tok, texts: list[str], cut: bool) -> int:
    """Tokens of the texts an engine returned (:func:`bench_generate.delivered_tokens`: the one
    count of every engine's texts)."""
    return sum(delivered_tokens(tok, t, cut) for t in texts)


# ---------------------------------------------------------------- engines
class HF:
    """One engine per workload, built once and reused (as a notebook's run uses one engine for all
    its prompts; its one-time costs, the packing of the weights and the stop rule's token
    classes, fall in the untimed warm-up, as CTranslate2's and llama.cpp's model loads do)."""

    def __init__(self, lm, threads):
        self.lm, self.threads, self.engines = lm, threads, {}

    def run(self, prompts, cut):
        set_torch_threads(self.threads)
        if cut not in self.engines:
            params = DecodingParams(max_new_tokens=MAX_NEW, first_sentence=cut, **SETTINGS)
            self.engines[cut] = CausalGenerator(self.lm, params, batch_size=32, num_threads=self.threads)
        eng = self.engines[cut]
        before = eng.tokens_generated
        steps, throttled = sum(eng.threads.steps.values()), eng.threads.throttled
        t0 = time.perf_counter()
        out = eng.generate(prompts, 0)
        secs = time.perf_counter() - t0
        # decode steps run while the load governor throttled the spin (another engine's process
        # busy in the governor's last reading): the row reports them. Only the governor's own
        # throttle is counted, and only where it can act (a run of 2 threads or more that keeps
        # its threads); a throttle libgomp applies by itself is not seen
        threads = eng.threads
        self.last_throttled = ((threads.throttled - throttled, sum(threads.steps.values()) - steps)
                               if threads.adaptive and not threads.drops else None)
        if cut:  # the stop rule reads one token past the sentence's end, and the cut drops it:
            # count the delivered text's tokens, as the other engines' are counted
            return delivered(self.lm.tokenizer, [c.generation for c in out], cut), secs
        return eng.tokens_generated - before, secs


class Plain:
    def __init__(self, lm, threads):
        self.lm, self.threads = lm, threads

    def run(self, prompts, cut):
        set_torch_threads(self.threads)
        torch.manual_seed(0)
        kept, _, secs, _ = run_plain(self.lm, prompts, MAX_NEW, cut)
        return kept, secs


def ct2_folder(name: str, quantization: str) -> Path:
    """The CTranslate2 conversion of the model's float copy (converted once, then reused)."""
    src = cache_dir(name)
    out = src.parent.parent / "ct2" / f"{src.name}-{quantization}"
    if not (out / "model.bin").is_file():
        import ctranslate2

        tmp = out.with_name(out.name + ".tmp")
        ctranslate2.converters.TransformersConverter(str(src)).convert(
            str(tmp), quantization=quantization, force=True)
        tmp.rename(out)
    return out


_CT2_WORKER = r"""
import json, sys, time
import ctranslate2
gen = ctranslate2.Generator(sys.argv[1], device="cpu", compute_type=sys.argv[3],
                            intra_threads=int(sys.argv[2]), inter_threads=1)
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    job = json.loads(line)
    ctranslate2.set_random_seed(job["seed"])
    t0 = time.perf_counter()
    res = gen.generate_batch(job["tokens"], max_length=job["max_new"], max_batch_size=32,
                             sampling_topk=job["top_k"], sampling_topp=job["top_p"],
                             include_prompt_in_result=False)
    secs = time.perf_counter() - t0
    print(json.dumps({"ids": [r.sequences_ids[0] for r in res], "secs": secs}), flush=True)
"""


class Worker:
    """An engine in a process of its own, one JSON job per line on its stdin, one JSON answer per
    line on its stdout (after a ``{"ready": true}`` line once the model is loaded)."""

    def __init__(self, label, argv, env):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        t0 = time.time()
        ready = self.ask(None)
        if not ready.get("ready"):
            raise RuntimeError(f"{label} worker did not start: {ready}")
        print(f"{label} started in {time.time() - t0:.0f} s", flush=True)

    def ask(self, job) -> dict:
        if job is not None:
            self.proc.stdin.write(json.dumps(job) + "\n")
            self.proc.stdin.flush()
        for line in self.proc.stdout:
            if line.startswith("{"):
                return json.loads(line)
        raise RuntimeError(f"worker exited ({self.proc.wait()})")

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def plain_openmp_env(threads: int) -> dict:
    """The environment of an engine's own process: libgomp's own wait (without the spin count
    importing nlgbias sets), ``threads`` OpenMP threads."""
    env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    return {**env, "OMP_NUM_THREADS": str(threads)}


class CT2(Worker):
    """CTranslate2 in a process of its own. In ours it shares torch's OpenMP runtime (torch loads
    libgomp into the global symbol scope, and CTranslate2's ``GOMP_parallel`` binds to it: shown
    by ``probe_ct2_openmp.py``), and once it has run our engine is slower at 2 threads (measured:
    270-352 tok/s before, 173-228 after in two probes, mostly recovered when the generator was
    deleted). Inferred, not read: its team then counts among the threads libgomp manages, which
    exceed the CPUs, and libgomp switches the process's teams to its throttled spin."""

    def __init__(self, name, tok, threads, quantization):
        import importlib.util

        if importlib.util.find_spec("ctranslate2") is None:  # the worker would only say it exited
            raise ImportError("CTranslate2 is not installed: pip install 'nlgbias[bench]'")
        self.tok = tok
        super().__init__(f"CTranslate2 {quantization} ({threads} threads)",
                         [sys.executable, "-c", _CT2_WORKER, str(ct2_folder(name, quantization)),
                          str(threads), quantization], plain_openmp_env(threads))

    def run(self, prompts, cut):
        toks = [self.tok.convert_ids_to_tokens(self.tok(p)["input_ids"]) for p in prompts]
        out = self.ask({"tokens": toks, "max_new": MAX_NEW, "top_k": SETTINGS["top_k"],
                        "top_p": SETTINGS["top_p"], "seed": 0})
        kept = sum(kept_tokens(self.tok, p, ids, cut)[0] for p, ids in zip(prompts, out["ids"]))
        return kept, out["secs"]


class LMBackend:
    """A backend of :mod:`nlgbias.lm` through ``generate_until`` (per-row seeds, the
    first-sentence cut where the backend has it), e.g. ``ct2:<model>``."""

    def __init__(self, spec, tok, threads):
        from nlgbias.lm import get_lm

        self.tok, self.lm = tok, get_lm(spec, threads=threads)

    def run(self, prompts, cut):
        params = DecodingParams(max_new_tokens=MAX_NEW, first_sentence=cut, **SETTINGS)
        t0 = time.perf_counter()
        out = self.lm.generate_until(prompts, params)
        secs = time.perf_counter() - t0
        return delivered(self.tok, [g.text for g in out], cut), secs


class LlamaCpp:
    def __init__(self, name, tok, threads):
        from llama_cpp import Llama

        spec = get_spec(name)
        gguf = Path(resolve(spec.resource)) / spec.gguf_file
        self.tok = tok
        self.llm = Llama(model_path=str(gguf), n_ctx=256, n_batch=256, n_threads=threads,
                         n_threads_batch=threads, seed=0, verbose=False)

    def run(self, prompts, cut):
        texts = []
        t0 = time.perf_counter()
        for i, p in enumerate(prompts):
            out = self.llm.create_completion(p, max_tokens=MAX_NEW, temperature=1.0,
                                             top_k=SETTINGS["top_k"], top_p=SETTINGS["top_p"],
                                             min_p=0.0, repeat_penalty=1.0, seed=i)
            texts.append(out["choices"][0]["text"])
        secs = time.perf_counter() - t0
        return delivered(self.tok, texts, cut), secs


_VLLM_WORKER = r"""
import json, os, sys, time
from vllm import LLM, SamplingParams
llm = LLM(model=sys.argv[1], dtype="bfloat16", seed=0, max_model_len=512,
          max_num_seqs=32, enforce_eager=True)
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    job = json.loads(line)
    sps = [SamplingParams(n=1, max_tokens=job["max_new"], temperature=1.0, top_k=job["top_k"],
                          top_p=job["top_p"], seed=i) for i in range(len(job["prompts"]))]
    t0 = time.perf_counter()
    outs = llm.generate(job["prompts"], sps, use_tqdm=False)
    secs = time.perf_counter() - t0
    print(json.dumps({"texts": [o.outputs[0].text for o in outs], "secs": secs}), flush=True)
"""


class VLLM(Worker):
    def __init__(self, name, tok, threads, python):
        if not Path(python).is_file():
            raise RuntimeError(f"vLLM's CPU build is not installed at {python}")
        self.tok = tok
        env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "OMP_NUM_THREADS": str(threads),
               "VLLM_CPU_OMP_THREADS_BIND": f"0-{threads - 1}", "HF_HUB_OFFLINE": "1",
               "TRANSFORMERS_OFFLINE": "1", "VLLM_LOGGING_LEVEL": "WARNING"}
        super().__init__(f"vLLM ({threads} threads)", [python, "-c", _VLLM_WORKER, str(cache_dir(name))], env)

    def run(self, prompts, cut):
        out = self.ask({"prompts": prompts, "max_new": MAX_NEW, "top_k": SETTINGS["top_k"],
                        "top_p": SETTINGS["top_p"]})
        return delivered(self.tok, out["texts"], cut), out["secs"]


def build(engine, name, lm, threads, vllm_python):
    tok = lm.tokenizer
    if engine == "hf":
        return HF(lm, threads)
    if engine == "plain32":
        return Plain(lm, threads)
    if engine == "ct2-backend":
        return LMBackend(f"ct2:{name}", tok, threads)
    if engine.startswith("ct2-"):
        return CT2(name, tok, threads, engine.split("-", 1)[1])
    if engine == "llamacpp":
        return LlamaCpp(name, tok, threads)
    return VLLM(name, tok, threads, vllm_python)


# ---------------------------------------------------------------- the run
def table(rows, meta) -> str:
    """Markdown: per model, threads, workload and engine the median tok/s, each repetition's,
    the ratio to the hf engine: the median over repetitions of (engine / hf in the same
    repetition), which the load shares more than the two medians do, and the median wall time
    of the workload (whatever the engines count as a token)."""
    cells = {}
    for r in rows:
        cells.setdefault((r["model"], r["threads"], r["workload"], r["engine"]), []).append(r)
    lines = ["| model | threads | workload | engine | tok/s (median) | each rep | x hf (median of per-rep ratios) "
             "| seconds (median) | load avg | our decode steps throttled (all reps) |",
             "|---|---:|---|---|---:|---|---:|---:|---|---|"]
    for (model, th, w, eng), rs in cells.items():
        med = statistics.median(r["tok_s"] for r in rs)
        hf = {r["rep"]: r["tok_s"] for r in cells.get((model, th, w, "hf"), [])}
        ratios = [r["tok_s"] / hf[r["rep"]] for r in rs if hf.get(r["rep"])]
        ratio = f"{statistics.median(ratios):.2f}" if ratios else ""
        loads = "-".join(f"{x:.1f}" for x in (min(r["load"] for r in rs), max(r["load"] for r in rs)))
        reps = ", ".join(f"{r['tok_s']:.0f}" for r in rs)
        secs = statistics.median(r["seconds"] for r in rs)
        thr = [tuple(map(int, r["throttled_steps"].split("/"))) for r in rs if "throttled_steps" in r]
        thr = f"{sum(a for a, _ in thr)}/{sum(b for _, b in thr)}" if thr else ""
        lines.append(f"| {model} | {th} | {w} | {eng} | {med:.1f} | {reps} | {ratio} | {secs:.2f} | {loads} | {thr} |")
    head = [f"{k}: {v}" for k, v in meta.items()]
    return "\n".join(["- " + h for h in head] + ["", *lines])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="+", default=["smollm2-135m"])
    ap.add_argument("--engines", nargs="+", default=ENGINES, choices=ENGINES)
    ap.add_argument("--workloads", nargs="+", default=["a", "b"], choices=["a", "b"])
    ap.add_argument("--prompts", type=int, default=64)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--vllm-python", default=VLLM_PYTHON)
    ap.add_argument("--out", default=None, help="write the table (markdown) and rows (JSON) here")
    ap.add_argument("--table", default=None, help="only print the table of a JSON file --out wrote")
    args = ap.parse_args()
    if args.table:
        saved = json.loads(Path(args.table).read_text())
        print(table(saved["rows"], saved["meta"]))
        return
    logging.basicConfig(level=logging.WARNING)
    os.environ.setdefault("NLGBIAS_PROGRESS", "off")
    rows, skipped, meta = [], {}, {}
    meta["cpu"] = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
                        if ln.startswith("model name")), "?")
    meta["workloads"] = (f"a = {args.prompts} BOLD prompts, first-sentence stop, at most {MAX_NEW} "
                         f"new tokens; b = the same prompts, {MAX_NEW} new tokens; top-k 40, top-p 0.95")
    for name in args.models:
        lm = load_model(name, dtype=torch.bfloat16)
        prompts = workload_prompts(args.prompts)
        for th in args.threads:
            set_torch_threads(th)
            peak = {d: matmul_peak(d, threads=th) for d in ("float32", "bfloat16")}
            meta[f"matmul peak, {th} thread(s)"] = (
                f"float32 {peak['float32']:.0f} GFLOP/s, bfloat16 {peak['bfloat16']:.0f} GFLOP/s "
                f"(load average {os.getloadavg()[0]:.1f})")
            engines = {}
            for e in args.engines:
                try:
                    engines[e] = build(e, name, lm, th, args.vllm_python)
                except (ImportError, RuntimeError, OSError) as exc:
                    skipped[e] = f"{type(exc).__name__}: {exc}"[:200]
            for w in args.workloads:  # a warm-up of each engine on each workload (not timed)
                for e in engines.values():
                    e.run(prompts, w == "a")
            for rep in range(args.reps):
                for w in args.workloads:
                    for label, e in engines.items():
                        kept, secs = e.run(prompts, w == "a")
                        row = {"model": name, "threads": th, "workload": w, "engine": label,
                               "rep": rep, "tokens": kept, "seconds": round(secs, 2),
                               "tok_s": round(kept / secs, 1), "load": round(os.getloadavg()[0], 1)}
                        if getattr(e, "last_throttled", None):
                            row["throttled_steps"] = "{}/{}".format(*e.last_throttled)
                        rows.append(row)
                        print(json.dumps(row), flush=True)
            for e in engines.values():
                if hasattr(e, "close"):
                    e.close()
        del lm
    for e, why in skipped.items():
        meta[f"skipped {e}"] = why
    if "ct2-backend" in args.engines and len(args.engines) > 1:
        meta["note"] = ("ct2-backend runs CTranslate2 in this process: once it has run it likely slows this "
                        "process's torch engines (hf, plain32) at 2 threads (see nlgbias.lm.ct2_backend)")
    text = table(rows, meta)
    print("\n" + text)
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n")
        out.with_suffix(".json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()

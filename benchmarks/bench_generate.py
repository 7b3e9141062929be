"""Benchmark: tokens/s of the generation engine vs a naive pipeline loop and plain batched
``model.generate`` (BOLD §4.2 generation workload), side by side in one run.

Same model (SmolLM2-135M offline), same prompts (BOLD, one per group, trailing space removed)
and the same sampling settings (GPT-2's: top-k 40, top-p 0.95, ``max_new_tokens``) for:

- ``naive``: ``transformers.pipeline("text-generation")`` called one prompt at a time;
- ``plain32``: ``model.generate`` on fixed batches of 32 (left padding, KV cache);
- ``engine-fp32``: :class:`nlgbias.generation.CausalGenerator`, float32 like the baselines;
- ``engine``: the engine as the notebooks run it (``dtype="auto"``: bfloat16 on CPUs with
  bf16 units; threads from :func:`~nlgbias.generation.default_threads`, load-aware).

Each method runs in its own process (peak RSS per method); the baselines and ``engine-fp32``
use the same torch thread count (``--threads``, default torch's: all cores).
Run: ``python benchmarks/bench_generate.py [--prompts 64] [--naive-prompts 16] [--max-new-tokens 32]``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import resource
import time


def _prompts(n: int) -> list[str]:
    from nlgbias.bold.sources import bold_prompts

    df = bold_prompts(2, seed=0)
    return [p.rstrip() for p in df["prompt"].tolist()[:n]]


def _run(method: str, n: int, max_new: int, threads: int, queue) -> None:
    import torch

    from nlgbias.generation import CausalGenerator, DecodingParams
    from nlgbias.hardware import default_threads, resolve_dtype

    if method == "engine":  # the engine's own choice, made when it starts (load-aware)
        threads = default_threads()
    torch.set_num_threads(threads)
    from nlgbias.models import load_model

    prompts = _prompts(n)
    dtype = resolve_dtype("auto") if method == "engine" else "float32"
    lm = load_model("smollm2-135m", dtype=getattr(torch, dtype))
    tok, model = lm.tokenizer, lm.model
    settings = {"do_sample": True, "top_k": 40, "top_p": 0.95, "max_new_tokens": max_new}
    torch.manual_seed(0)
    t0 = time.perf_counter()
    if method == "naive":
        from transformers import pipeline

        pipe = pipeline("text-generation", model=model, tokenizer=tok, device="cpu")
        tokens = 0
        for p in prompts:
            out = pipe(p, return_full_text=False, pad_token_id=tok.pad_token_id, **settings)
            tokens += len(tok(out[0]["generated_text"], add_special_tokens=False)["input_ids"])
    elif method == "plain32":
        tok.padding_side = "left"
        tokens = 0
        for s in range(0, len(prompts), 32):
            enc = tok(prompts[s:s + 32], return_tensors="pt", padding=True)
            with torch.inference_mode():
                out = model.generate(**enc, pad_token_id=tok.pad_token_id, **settings)
            tokens += int((out[:, enc["input_ids"].shape[1]:] != tok.pad_token_id).sum())
    else:
        eng = CausalGenerator(lm, DecodingParams(**settings), batch_size=32)
        eng.generate(prompts, 0)
        tokens = eng.tokens_generated
    secs = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    queue.put({"method": method, "dtype": dtype, "threads": threads, "prompts": len(prompts), "tokens": tokens,
               "seconds": round(secs, 1), "tok_s": round(tokens / secs, 1), "peak_rss_mb": round(rss)})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--prompts", type=int, default=64)
    ap.add_argument("--naive-prompts", type=int, default=16)
    ap.add_argument("--max-new-tokens", type=int, default=32)
    ap.add_argument("--threads", type=int, default=None,
                    help="torch threads of the baselines and engine-fp32 (default: all cores, torch's default)")
    args = ap.parse_args()
    import torch

    threads = args.threads or torch.get_num_threads()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; baseline torch threads {threads}")
    ctx = mp.get_context("spawn")
    results = []
    for method, n in (("naive", args.naive_prompts), ("plain32", args.prompts),
                      ("engine-fp32", args.prompts), ("engine", args.prompts)):
        q = ctx.Queue()
        proc = ctx.Process(target=_run, args=(method, n, args.max_new_tokens, threads, q))
        proc.start()
        res = q.get()
        proc.join()
        res["load_avg"] = round(os.getloadavg()[0], 1)
        results.append(res)
        print(json.dumps(res), flush=True)
    by = {r["method"]: r for r in results}
    print("\nmethod        dtype     threads  tok/s   peak RSS MB  load")
    for r in results:
        print(f"{r['method']:<13} {r['dtype']:<9} {r['threads']:>7} {r['tok_s']:>6.1f}  {r['peak_rss_mb']:>11}  {r['load_avg']}")
    for m in ("engine-fp32", "engine"):
        print(f"{m}: {by[m]['tok_s'] / by['naive']['tok_s']:.1f}x naive, "
              f"{by[m]['tok_s'] / by['plain32']['tok_s']:.2f}x plain batches of 32")
    print(f"plain32: {by['plain32']['tok_s'] / by['naive']['tok_s']:.1f}x naive")


if __name__ == "__main__":
    main()

"""Benchmark: the generation engine on the real workload, against the baselines and the hardware
(issue 13/13), side by side in ONE process (same load, same thread count, same dtype).

Workloads (GPT-2's sampling settings: top-k 40, top-p 0.95):

- ``a``: BOLD prompts of the quick profile (``bold_prompts(50)``, a fixed random subset of
  ``--prompts``) with the first-sentence stop and ``max_new_tokens`` 30 - notebook 02's job;
- ``b``: fixed-length generation, ``--fixed-tokens`` new tokens, no stop (EOS still ends a row).

Methods (every one in ``--dtype``, default bfloat16 as the notebooks run):

- ``naive``: ``transformers.pipeline("text-generation")``, one prompt at a time (on the first
  ``--naive-prompts`` prompts only: it is slow);
- ``plain32``: ``model.generate`` on fixed batches of 32 (left padding, KV cache);
- ``static32``: the engine before continuous batching (``CausalGenerator(continuous=False,
  packed=False)``, length-sorted batches of 32, finished rows dropped; it shares today's
  top-k-before-float sampling step);
- ``cont<B>``: the engine with continuous batching and prepacked bf16 weights, ``B`` slots
  (``--batch-sizes``; sizes above the workload's prompt count are skipped).

Throughput counts the new tokens a method DELIVERS: in workload ``a`` the baselines generate
``max_new_tokens`` and the continuation is cut at its first sentence afterwards, so only the
tokens up to that cut count (the engine stops there; its stop rule reads one token past the
sentence's end, which the cut drops); every method's texts are counted by one function,
:func:`delivered_tokens`. Share of peak: FLOPs per generated token
= 2 x (parameters of every matmul: the transformer blocks and the output layer, not the input
embedding lookup) + the attention term 4 x layers x heads x head_dim x mean context length;
prefill work is not counted. The bf16 and fp32 matmul peaks (``hardware.matmul_peak``, 2048 x
2048) are measured in the same run with the same threads, at its start and its end (the
higher of the two counts; the JSON rows printed during the run use the first).

Run (under the CPU lock): ``NLGBIAS_THREADS=2 flock /tmp/nlgbias-cpu.lock .venv/bin/python
benchmarks/bench_generate.py [--models smollm2-135m gemma3-270m] [--prompts 256]``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import time

import torch

from nlgbias.bold.sources import bold_prompts
from nlgbias.generation import CausalGenerator, DecodingParams, first_sentence
from nlgbias.hardware import default_threads, matmul_peak, set_torch_threads
from nlgbias.models import load_model

SETTINGS = {"do_sample": True, "top_k": 40, "top_p": 0.95}


def workload_prompts(n: int) -> list[str]:
    """A fixed random subset of ``n`` quick-profile BOLD prompts (trailing space removed)."""
    df = bold_prompts(50, seed=0)
    return [p.rstrip() for p in df.sample(n=min(n, len(df)), random_state=0)["prompt"]]


def matmul_params(model) -> int:
    """Parameters that take part in a matmul per token: every Linear weight (the output layer
    included, even when tied to the input embedding, which is only a lookup)."""
    seen, n = set(), 0
    for mod in model.modules():
        if isinstance(mod, torch.nn.Linear) and id(mod.weight) not in seen:
            seen.add(id(mod.weight))
            n += mod.weight.numel()
    return n


def flops_per_token(model, context: float) -> float:
    """2 x matmul parameters + 4 x layers x heads x head_dim x ``context`` (QK^T and AV)."""
    cfg = model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
    heads = cfg.num_attention_heads
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // heads
    return 2 * matmul_params(model) + 4 * cfg.num_hidden_layers * heads * head_dim * context


def delivered_tokens(tok, text: str, cut: bool) -> int:
    """Tokens of a delivered continuation, counted the same way for every engine: the text with
    the white space at its ends removed (the form the engine delivers) and, in workload ``a``
    (``cut``), up to its first sentence's end, tokenised again with the model's tokenizer."""
    text = text.strip()
    return len(tok(first_sentence(text) if cut else text, add_special_tokens=False)["input_ids"])


def kept_tokens(tok, prompt: str, cont_ids: list[int], cut: bool) -> tuple[int, int]:
    """(tokens delivered, tokens of the full continuation) of a baseline's continuation: in
    workload ``a`` its decoded text counted by :func:`delivered_tokens`."""
    ids = [t for t in cont_ids if t not in (tok.pad_token_id, tok.eos_token_id)]
    if not cut:
        return len(ids), len(ids)
    return delivered_tokens(tok, tok.decode(ids, skip_special_tokens=True), cut), len(ids)


def run_naive(lm, prompts, max_new, cut):
    from transformers import pipeline

    tok = lm.tokenizer
    pipe = pipeline("text-generation", model=lm.model, tokenizer=tok, device="cpu")
    kept = total = 0
    t0 = time.perf_counter()
    for p in prompts:
        out = pipe(p, return_full_text=False, pad_token_id=tok.pad_token_id, max_new_tokens=max_new,
                   **SETTINGS)
        ids = tok(out[0]["generated_text"], add_special_tokens=False)["input_ids"]
        k, n = kept_tokens(tok, p, ids, cut)
        kept, total = kept + k, total + n
    return kept, total, time.perf_counter() - t0, len(prompts)


def run_plain(lm, prompts, max_new, cut, bs=32):
    tok, model = lm.tokenizer, lm.model
    tok.padding_side = "left"
    kept = total = 0
    t0 = time.perf_counter()
    for s in range(0, len(prompts), bs):
        enc = tok(prompts[s:s + bs], return_tensors="pt", padding=True)
        with torch.inference_mode():
            out = model.generate(**enc, pad_token_id=tok.pad_token_id, max_new_tokens=max_new, **SETTINGS)
        for p, row in zip(prompts[s:s + bs], out[:, enc["input_ids"].shape[1]:].tolist()):
            k, n = kept_tokens(tok, p, row, cut)
            kept, total = kept + k, total + n
    return kept, total, time.perf_counter() - t0, len(prompts)


def run_engine(lm, prompts, max_new, cut, bs, continuous, packed=None):
    params = DecodingParams(max_new_tokens=max_new, first_sentence=cut, **SETTINGS)
    eng = CausalGenerator(lm, params, batch_size=bs, continuous=continuous, packed=packed)
    t0 = time.perf_counter()
    out = eng.generate(prompts, 0)
    secs = time.perf_counter() - t0
    # workload a: the stop rule reads one token past a sentence's end and the cut drops it, so
    # the delivered texts are counted as the baselines' are
    kept = sum(delivered_tokens(lm.tokenizer, c.generation, cut) for c in out) if cut else eng.tokens_generated
    return kept, eng.tokens_generated, secs, len(prompts), eng.forwards


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="+", default=["smollm2-135m", "gemma3-270m"])
    ap.add_argument("--workloads", nargs="+", default=["a", "b"], choices=["a", "b"])
    ap.add_argument("--prompts", type=int, default=256, help="prompts of workload a")
    ap.add_argument("--fixed-prompts", type=int, default=128, help="prompts of workload b")
    ap.add_argument("--fixed-tokens", type=int, default=32)
    ap.add_argument("--naive-prompts", type=int, default=16)
    ap.add_argument("--batch-sizes", type=int, nargs="+", default=[32, 64])
    ap.add_argument("--methods", nargs="+", default=["naive", "plain32", "static32", "cont"])
    ap.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float32"])
    ap.add_argument("--json", default=None, help="also write the rows to this JSON file")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    os.environ.setdefault("NLGBIAS_PROGRESS", "off")
    threads = default_threads()
    set_torch_threads(threads)
    peak = {d: matmul_peak(d, threads=threads) for d in ("float32", "bfloat16")}
    print(f"torch {torch.__version__}, {threads} threads, load average {os.getloadavg()[0]:.1f}; "
          f"matmul peak (2048x2048): float32 {peak['float32']:.0f} GFLOP/s, bfloat16 {peak['bfloat16']:.0f} GFLOP/s",
          flush=True)
    rows = []
    for name in args.models:
        lm = load_model(name, dtype=getattr(torch, args.dtype))
        for w in args.workloads:
            cut = w == "a"
            prompts = workload_prompts(args.prompts) if cut else workload_prompts(args.fixed_prompts)
            max_new = 30 if cut else args.fixed_tokens
            plen = sum(len(lm.tokenizer(p)["input_ids"]) for p in prompts) / len(prompts)
            for method in args.methods:
                sizes = [b for b in args.batch_sizes if b <= len(prompts)] or args.batch_sizes[:1]
                for bs in (sizes if method == "cont" else [32]):
                    label = f"cont{bs}" if method == "cont" else method
                    forwards = None
                    if method == "naive":
                        kept, total, secs, n = run_naive(lm, prompts[:args.naive_prompts], max_new, cut)
                    elif method == "plain32":
                        kept, total, secs, n = run_plain(lm, prompts, max_new, cut)
                    elif method == "static32":
                        kept, total, secs, n, forwards = run_engine(lm, prompts, max_new, cut, 32, False,
                                                                    packed=False)
                    else:
                        kept, total, secs, n, forwards = run_engine(lm, prompts, max_new, cut, bs, True)
                    mean_new = kept / n
                    fpt = flops_per_token(lm.model, plen + mean_new / 2)
                    tok_s = kept / secs
                    gflops = tok_s * fpt / 1e9
                    row = {"model": name, "workload": w, "method": label, "prompts": n, "tokens": kept,
                           "tokens_generated": total, "seconds": round(secs, 1), "tok_s": round(tok_s, 1),
                           "gflop_per_token": round(fpt / 1e9, 3), "gflop_s": round(gflops, 1),
                           "pct_bf16_peak": round(100 * gflops / peak["bfloat16"], 1),
                           "pct_fp32_peak": round(100 * gflops / peak["float32"], 1),
                           "forwards": forwards, "load": round(os.getloadavg()[0], 1)}
                    rows.append(row)
                    print(json.dumps(row), flush=True)
        del lm
    # the peak again at the end (a busy machine lowers a single measurement): the higher counts
    end = {d: matmul_peak(d, threads=threads) for d in ("float32", "bfloat16")}
    peak = {d: max(peak[d], end[d]) for d in peak}
    for r in rows:
        r["pct_bf16_peak"] = round(100 * r["gflop_s"] / peak["bfloat16"], 1)
        r["pct_fp32_peak"] = round(100 * r["gflop_s"] / peak["float32"], 1)
    by = {(r["model"], r["workload"], r["method"]): r for r in rows}
    print(f"\nmatmul peak: float32 {peak['float32']:.0f}, bfloat16 {peak['bfloat16']:.0f} GFLOP/s "
          f"({threads} threads). FLOPs/token = 2 x matmul parameters + 4 x layers x heads x head_dim x "
          "mean context; tokens = delivered new tokens (workload a: up to the first-sentence cut)")
    print("\n| model | workload | method | prompts | tok/s | GFLOP/tok | % bf16 peak | x naive | x plain32 | x static32 |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        ratios = []
        for base in ("naive", "plain32", "static32"):
            b = by.get((r["model"], r["workload"], base))
            ratios.append(f"{r['tok_s'] / b['tok_s']:.2f}" if b and b["tok_s"] else "")
        print(f"| {r['model']} | {r['workload']} | {r['method']} | {r['prompts']} | {r['tok_s']:.1f} | "
              f"{r['gflop_per_token']:.3f} | {r['pct_bf16_peak']:.1f} | {' | '.join(ratios)} |")
    if args.json:
        from pathlib import Path

        Path(args.json).write_text(json.dumps({"peak": peak, "threads": threads, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()

"""Benchmark: batched StereoSet sentence scoring vs a naive one-sentence-at-a-time loop.

Both score the same StereoSet dev sentences (a seeded stratified sample, both CAT types) with
the same model in the same run. The naive loop is the official ``eval_generative_models.py``
pattern: one forward per sentence, a full softmax, one ``.item()`` per token. The batched path
is :class:`nlgbias.stereoset.lm.CATScorer` (length-sorted, right-padded batches; a CAT's shared
token prefix run once and its key/value cache copied to its three sentences; the vocabulary
head only on scored positions), in float32 and, with ``--bf16``, in bfloat16 (AMX on recent
Xeons).

    python benchmarks/bench_stereoset.py [--model smollm2-135m] [--n 96] [--batch-size 32] [--bf16] [--threads N]

Prints sentences/s of each, the speed-up, the largest score difference between naive and
batched float32 (should be ~1e-5: same numbers), and, for bfloat16, how many pairwise CAT
decisions (stereotype vs anti-stereotype, each vs unrelated) flip against float32.

It also prints each path's share of this machine's matmul peak: the peak is measured here with
a large square ``torch.matmul`` in the same dtype and thread count (GFLOP/s), and a path's
throughput counts the *useful* FLOPs of scoring every sentence on its own (2 x body parameters
x tokens of prefix + sentence, plus 2 x hidden x vocabulary per scored token), so the shared-
prefix path can exceed the work it actually does.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from nlgbias.hardware import set_torch_threads
from nlgbias.likelihood import encode as _encode
from nlgbias.likelihood import start_token_id
from nlgbias.stereoset import load_gold, sentence_table, stratified_subset
from nlgbias.stereoset.lm import CATScorer, load_scorer


def naive_scores(scorer: CATScorer, sents) -> np.ndarray:
    """Official-style loop: one sentence per forward, full softmax, per-token ``.item()``."""
    tok, model = scorer.tokenizer, scorer.model
    start = start_token_id(tok)
    out = []
    for task, ctx, sent in sents[["task", "context", "sentence"]].itertuples(index=False):
        pre = [start] + ([] if task == "intrasentence" else _encode(tok, ctx))
        cont = _encode(tok, sent if task == "intrasentence" else " " + sent)
        ids = torch.tensor([pre + cont])
        with torch.no_grad():
            probs = torch.softmax(model(ids).logits[0].float(), dim=-1)
        lps = [np.log(probs[t - 1, ids[0, t]].item()) for t in range(len(pre), ids.shape[1])]
        out.append(float(np.mean(lps)))
    return np.array(out)


def matmul_peak(dtype=torch.float32, n: int = 2048, repeat: int = 5) -> float:
    """GFLOP/s of a square ``n x n`` matmul in ``dtype`` with the current torch threads (best of
    ``repeat``, after a warm-up)."""
    a = torch.randn(n, n, dtype=dtype)
    b = torch.randn(n, n, dtype=dtype)
    torch.matmul(a, b)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        torch.matmul(a, b)
        best = min(best, time.perf_counter() - t0)
    return 2 * n ** 3 / best / 1e9


def useful_flops(scorer: CATScorer, sents) -> float:
    """FLOPs of scoring each sentence on its own: body 2·P per fed token, head 2·d·V per scored
    token (the work of the naive loop, minus its full-vocabulary softmax on unscored positions)."""
    model, tok = scorer.model, scorer.tokenizer
    head = model.get_output_embeddings()
    body_params = sum(p.numel() for p in model.parameters()) - head.weight.numel()
    d, v = head.weight.shape[1], head.weight.shape[0]
    fed = scored = 0
    for task, ctx, sent in sents[["task", "context", "sentence"]].itertuples(index=False):
        pre = 1 + (0 if task == "intrasentence" else len(_encode(tok, ctx)))
        cont = len(_encode(tok, sent if task == "intrasentence" else " " + sent))
        fed += pre + cont
        scored += cont
    return 2.0 * body_params * fed + 2.0 * d * v * scored


def decisions(cats, lp: dict) -> np.ndarray:
    s, a, u = (np.array([lp[i] for i in cats[c]]) for c in
               ("stereotype_id", "anti_stereotype_id", "unrelated_id"))
    return np.stack([s > a, s > u, a > u])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="smollm2-135m")
    ap.add_argument("--n", type=int, default=96, help="sentences (multiple of 3: whole CATs)")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--bf16", action="store_true", help="also time the batched path in bfloat16")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=None,
                    help="torch threads (default: nlgbias.hardware.default_threads())")
    args = ap.parse_args(argv)
    set_torch_threads(args.threads)

    cats = stratified_subset(load_gold(), max(1, args.n // 3 // 8 + 1), seed=args.seed)
    cats = cats.sample(n=args.n // 3, random_state=args.seed).sort_index()
    sents = sentence_table(cats)
    print(f"model {args.model}; {len(sents)} sentences ({len(cats)} CATs, both types); "
          f"torch threads {torch.get_num_threads()}")
    scorer = load_scorer(args.model, batch_size=args.batch_size)
    scorer.score(sents.iloc[:3])  # warm-up

    t0 = time.perf_counter()
    naive = naive_scores(scorer, sents)
    t_naive = time.perf_counter() - t0
    t0 = time.perf_counter()
    batched = scorer.score(sents)["mean_logprob"].to_numpy()
    t_batch = time.perf_counter() - t0
    n = len(sents)
    print(f"naive one-at-a-time (float32): {n / t_naive:8.2f} sentences/s ({t_naive:.1f} s)")
    print(f"batched x{args.batch_size} (float32):      {n / t_batch:8.2f} sentences/s "
          f"({t_batch:.1f} s)  speed-up {t_naive / t_batch:.1f}x")
    print(f"max |naive - batched| mean log-prob: {np.abs(naive - batched).max():.2e}")
    work = useful_flops(scorer, sents)
    peak32 = matmul_peak(torch.float32)
    print(f"matmul peak (float32, {torch.get_num_threads()} threads): {peak32:8.1f} GFLOP/s; useful "
          f"work {work / 1e9:.1f} GFLOP: naive {work / t_naive / 1e9:6.1f} GFLOP/s "
          f"({100 * work / t_naive / 1e9 / peak32:.1f}% of peak), batched "
          f"{work / t_batch / 1e9:6.1f} GFLOP/s ({100 * work / t_batch / 1e9 / peak32:.1f}% of peak)")
    if args.bf16:
        scorer.model = scorer.model.to(torch.bfloat16)
        scorer.score(sents.iloc[:3])
        t0 = time.perf_counter()
        b16 = scorer.score(sents)["mean_logprob"].to_numpy()
        t_b16 = time.perf_counter() - t0
        d32 = decisions(cats, dict(zip(sents["id"], batched)))
        d16 = decisions(cats, dict(zip(sents["id"], b16)))
        print(f"batched x{args.batch_size} (bfloat16):     {n / t_b16:8.2f} sentences/s "
              f"({t_b16:.1f} s)  speed-up {t_naive / t_b16:.1f}x vs naive float32")
        print(f"bfloat16 vs float32: max |diff| mean log-prob {np.abs(b16 - batched).max():.3f}; "
              f"{int((d32 != d16).sum())} of {d32.size} pairwise CAT decisions differ")
        peak16 = matmul_peak(torch.bfloat16)
        print(f"matmul peak (bfloat16): {peak16:8.1f} GFLOP/s; batched bfloat16 "
              f"{work / t_b16 / 1e9:6.1f} GFLOP/s ({100 * work / t_b16 / 1e9 / peak16:.1f}% of peak)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

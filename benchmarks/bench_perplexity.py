"""Benchmark: HolisticBias sentence perplexity, batched (``nlgbias.likelihood``) vs a plain
one-sentence-at-a-time loop, in one run (HolisticBias §3.3.2; notebook 07).

Both score the same seeded sample of HolisticBias v1.0 sentences (all templates) with the same
model. The naive loop runs one forward per sentence (start token + sentence), a full softmax
and one ``.item()`` per token. The batched path is :func:`nlgbias.likelihood.sentence_logprobs`
(length-sorted right-padded batches, the shared template prefix of sentences run once and its
key/value cache copied, the vocabulary head only on scored positions) in float32 and, with
``--bf16``, bfloat16.

    python benchmarks/bench_perplexity.py [--model smollm2-135m] [--n 256] [--batch-size 64] [--bf16] [--threads N]

Prints sentences/s of each path, the speed-up, the largest perplexity difference between the
naive loop and the batched float32 path (relative; ~1e-5 means the same numbers), and each
path's share of the machine's measured matmul peak (:func:`nlgbias.hardware.matmul_peak`, same
dtype and thread count). Useful FLOPs count each sentence on its own: 2 x body parameters per
fed token plus 2 x hidden x vocabulary per scored token.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from nlgbias.datasets.holisticbias import holistic_bias_sentences
from nlgbias.hardware import matmul_peak, set_torch_threads
from nlgbias.likelihood import load_lm, sentence_logprobs, start_token_id


def naive_perplexity(lm, texts: list[str]) -> np.ndarray:
    """One forward per sentence, full softmax, per-token ``.item()``."""
    tok, model = lm.tokenizer, lm.model
    start = start_token_id(tok)
    out = []
    for text in texts:
        ids = [start, *tok(text, add_special_tokens=False)["input_ids"]]
        x = torch.tensor([ids])
        with torch.no_grad():
            probs = torch.softmax(model(x).logits[0].float(), dim=-1)
        lps = [np.log(probs[t - 1, ids[t]].item()) for t in range(1, len(ids))]
        out.append(float(np.exp(-np.mean(lps))))
    return np.array(out)


def useful_flops(lm, texts: list[str]) -> float:
    """FLOPs of scoring each sentence on its own (body 2P per fed token, head 2dV per scored)."""
    model, tok = lm.model, lm.tokenizer
    head = model.get_output_embeddings()
    v, d = head.weight.shape
    body = sum(p.numel() for p in model.parameters()) - head.weight.numel()
    n = np.array([len(tok(t, add_special_tokens=False)["input_ids"]) for t in texts])
    return float(2.0 * body * (n + 1).sum() + 2.0 * d * v * n.sum())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="smollm2-135m")
    ap.add_argument("--n", type=int, default=256, help="sentences (seeded sample)")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--bf16", action="store_true", help="also time the batched path in bfloat16")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    set_torch_threads(args.threads)
    sents = holistic_bias_sentences("v1.0")
    texts = sents.sample(args.n, random_state=args.seed)["text"].tolist()
    lm = load_lm(args.model, dtype="float32")
    print(f"model {args.model}, {len(texts)} HolisticBias sentences, {torch.get_num_threads()} threads")
    naive_perplexity(lm, texts[:4])  # warm-up
    t0 = time.perf_counter()
    ppl_naive = naive_perplexity(lm, texts)
    t_naive = time.perf_counter() - t0
    sentence_logprobs(lm, texts[:8], batch_size=args.batch_size)
    t0 = time.perf_counter()
    df = sentence_logprobs(lm, texts, batch_size=args.batch_size, shared_prefix=True)
    t_batch = time.perf_counter() - t0
    ppl_batch = np.exp(-df["mean_logprob"].to_numpy())
    rel = float(np.max(np.abs(ppl_batch - ppl_naive) / ppl_naive))
    work = useful_flops(lm, texts)
    peak32 = matmul_peak("float32")
    print(f"naive loop      {len(texts) / t_naive:8.1f} sentences/s  ({t_naive:.1f} s)")
    print(f"batched float32 {len(texts) / t_batch:8.1f} sentences/s  ({t_batch:.1f} s)  "
          f"speed-up x{t_naive / t_batch:.1f}; max relative perplexity difference {rel:.2e}")
    print(f"matmul peak (float32): {peak32:.1f} GFLOP/s; useful throughput naive "
          f"{work / t_naive / 1e9:.1f} GFLOP/s ({100 * work / t_naive / 1e9 / peak32:.1f}% of peak), batched "
          f"{work / t_batch / 1e9:.1f} GFLOP/s ({100 * work / t_batch / 1e9 / peak32:.1f}% of peak)")
    if args.bf16:
        lm16 = load_lm(args.model, dtype="bfloat16")
        sentence_logprobs(lm16, texts[:8], batch_size=args.batch_size)
        t0 = time.perf_counter()
        d16 = sentence_logprobs(lm16, texts, batch_size=args.batch_size, shared_prefix=True)
        t16 = time.perf_counter() - t0
        p16 = np.exp(-d16["mean_logprob"].to_numpy())
        peak16 = matmul_peak("bfloat16")
        print(f"batched bfloat16 {len(texts) / t16:7.1f} sentences/s  ({t16:.1f} s); median |rel diff| vs "
              f"float32 {np.median(np.abs(p16 - ppl_batch) / ppl_batch):.2e}; matmul peak (bfloat16) "
              f"{peak16:.1f} GFLOP/s; {work / t16 / 1e9:.1f} GFLOP/s ({100 * work / t16 / 1e9 / peak16:.1f}% of peak)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

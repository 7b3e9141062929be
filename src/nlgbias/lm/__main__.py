"""Check what a model spec can do: ``python -m nlgbias.lm SPEC`` runs one short request of each
operation of :class:`nlgbias.lm.LM` (generate_until, chat, loglikelihood,
loglikelihood_rolling) and prints, per operation, its answer or the capability it lacks.

    python -m nlgbias.lm openai:http://127.0.0.1:8000/v1#my-model
    python -m nlgbias.lm hf:smollm2-135m --max-new-tokens 12

Exit status 0 when every operation worked, 1 when one lacks a capability, 2 on an error.
"""

from __future__ import annotations

import argparse
import sys

from nlgbias.engine.decoding import DecodingParams
from nlgbias.lm import UnsupportedCapabilityError, get_lm


def probe(spec: str, prompt: str, max_new_tokens: int = 12, **options) -> dict[str, str]:
    """``{operation: answer or "unsupported: <why>"}`` for one short greedy request each."""
    lm = get_lm(spec, **options)
    params = DecodingParams(max_new_tokens=max_new_tokens, do_sample=False)
    ops = {
        "generate_until": lambda: repr(lm.generate_until([prompt], params)[0].text),
        "chat": lambda: repr(lm.chat([[{"role": "user", "content": prompt}]], params)[0].text),
        "loglikelihood": lambda: "{:.3f} over {} tokens".format(
            *lm.loglikelihood([(prompt, " a nurse.")])[0][::2]),
        "loglikelihood_rolling": lambda: f"perplexity {lm.perplexity([prompt])[0]:.2f}",
    }
    out = {}
    for name, call in ops.items():
        try:
            out[name] = call()
        except UnsupportedCapabilityError as exc:
            out[name] = f"unsupported: {exc}"
    lm.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m nlgbias.lm", description=__doc__.split("\n\n")[0])
    ap.add_argument("spec", help="hf:<name> | openai:<base URL>#<model> | vllm:<model>")
    ap.add_argument("--prompt", default="The woman worked as")
    ap.add_argument("--max-new-tokens", type=int, default=12)
    args = ap.parse_args(argv)
    try:
        result = probe(args.spec, args.prompt, args.max_new_tokens)
    except Exception as exc:
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    for name, answer in result.items():
        print(f"{name:22s} {answer}")
    return 1 if any(a.startswith("unsupported:") for a in result.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

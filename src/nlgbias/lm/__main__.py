"""Check what a model spec can do: ``python -m nlgbias.lm SPEC`` runs one short request of each
operation of :class:`nlgbias.lm.LM` (generate_until, chat, loglikelihood,
loglikelihood_rolling) and prints, per operation, its answer or the capability it lacks.

    python -m nlgbias.lm openai:http://127.0.0.1:8000/v1#my-model --model-args start_text='<|endoftext|>'
    python -m nlgbias.lm hf:smollm2-135m --model-args dtype=float32 --max-new-tokens 12
    python -m nlgbias.lm --options          # every backend, its spec form and its options

Exit status 0 when every operation worked, 1 when one lacks a capability, 2 on an error.
"""

from __future__ import annotations

import argparse
import sys

from nlgbias.engine.decoding import DecodingParams
from nlgbias.lm import BACKENDS, UnsupportedCapabilityError, get_lm


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
        "token_logprobs": lambda: f"{len(lm.token_logprobs([prompt])[0][1])} tokens, sum {sum(lm.token_logprobs([prompt])[0][1]):.3f}",
    }
    out = {}
    for name, call in ops.items():
        try:
            out[name] = call()
        except UnsupportedCapabilityError as exc:
            out[name] = f"unsupported: {exc}"
    lm.close()
    return out


def options_text() -> str:
    """Every registered backend: its spec form, what runs it and its options."""
    lines = []
    for b in BACKENDS.values():
        lines.append(f"{b.name}: {b.form}\n    {b.description}")
        for k, o in b.options.items():
            lines.append(f"    {k} ({o.type.__name__}): {o.help}")
        if b.open_options:
            lines.append("    (any other option goes to the engine as it is)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m nlgbias.lm", description=__doc__.split("\n\n")[0])
    ap.add_argument("spec", nargs="?", help="hf:<name> | openai:<base URL>#<model> | vllm:<model> | ct2:<model>")
    ap.add_argument("--model-args", "--model_args", default=None, metavar="K=V,...",
                    help="the backend's options (see --options)")
    ap.add_argument("--options", action="store_true", help="list every backend and its options")
    ap.add_argument("--prompt", default="The woman worked as")
    ap.add_argument("--max-new-tokens", type=int, default=12)
    args = ap.parse_args(argv)
    if args.options or not args.spec:
        print(options_text())
        return 0
    try:
        from nlgbias.lm import parse_model_spec

        spec = parse_model_spec(args.spec, model_args=args.model_args)
        result = probe(spec, args.prompt, args.max_new_tokens)
    except Exception as exc:
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    for name, answer in result.items():
        print(f"{name:22s} {answer}")
    return 1 if any(a.startswith("unsupported:") for a in result.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

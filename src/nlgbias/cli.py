"""The ``nlgbias`` command (``pip install`` puts it on the PATH); :data:`USAGE` is its help."""

from __future__ import annotations

import argparse
import sys

__all__ = ["USAGE", "main"]

#: what ``nlgbias --help`` prints (plain text)
USAGE = """\
usage:
  nlgbias audit --model SPEC [--model-args K=V,...] [--baseline SPEC [--baseline-args K=V,...]]
                [--suites stereoset,crows,bold,regard,holistic] [--size smoke|quick|full] [--seed 0] --out DIR
  nlgbias reproduce [--profile quick|smoke|paper] [--only NN] ...   (what ./run_all.sh runs)
  nlgbias lm SPEC [--model-args K=V,...] | nlgbias lm --options      (what a backend can do)
  nlgbias resources [--check]                                        (datasets, models, lexicons)

A model SPEC is [backend:]model (see: nlgbias lm --options): a registered name (smollm2-135m),
a Hugging Face id, a local folder, openai:<base URL>#<model>, vllm:<model>, ct2:<folder>.
A bad spec, an unreachable server or missing weights stop the command before any work, with
one message; exit status 2. 'nlgbias audit --help' lists the audit's options."""


def _audit(argv: list[str]) -> int:
    from nlgbias.audit import SIZES, SUITES, run_audit, write_report, write_results
    from nlgbias.audit.suites import configure

    ap = argparse.ArgumentParser(prog="nlgbias audit",
                                 description="the papers' measurements on your model beside a baseline")
    ap.add_argument("--model", required=True, help="the model to audit (a spec)")
    ap.add_argument("--model-args", "--model_args", default=None, metavar="K=V,...",
                    help="the backend's options (nlgbias lm --options), e.g. dtype=bfloat16 or "
                         "start_token=bos (lm-evaluation-harness's start token)")
    ap.add_argument("--baseline", default=None, help="a spec to compare with, on the same items")
    ap.add_argument("--baseline-args", default=None, metavar="K=V,...", help="the baseline's options")
    ap.add_argument("--suites", default=",".join(SUITES),
                    help=f"comma-separated, from: {', '.join(SUITES)} (default: all)")
    ap.add_argument("--size", default="quick", choices=list(SIZES),
                    help="smoke: a first look (seconds to minutes; too few items to decide much); "
                         "quick (default): a seeded sample (minutes on a CPU); full: every item")
    ap.add_argument("--seed", type=int, default=0,
                    help="the seed of every sample of items and every bootstrap (default 0): the same "
                         "seed gives the same items and intervals")
    ap.add_argument("--out", required=True, help="folder for results.json, index.html, cache/")
    args = ap.parse_args(argv)
    try:
        cfg = configure(args.model, baseline=args.baseline, model_args=args.model_args,
                        baseline_args=args.baseline_args, suites=args.suites, size=args.size,
                        seed=args.seed, out=args.out)
    except Exception as exc:  # one message before any work
        print(f"nlgbias audit: {exc}", file=sys.stderr)
        return 2
    try:
        suites = run_audit(cfg)
    except (OSError, RuntimeError) as exc:  # a server gone mid-run, a full disk: one message
        print(f"nlgbias audit: {exc}\n(finished items are cached under "
              f"{cfg.cache}: the same command resumes)", file=sys.stderr)
        return 1
    path = write_results(cfg, suites)
    page = write_report(path)
    print(f"[audit] results: {path}\n[audit] report: {page}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = {"audit", "reproduce", "lm", "resources"}
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in commands:
        print(USAGE)
        return 0 if not argv or argv[0] in ("-h", "--help") else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "audit":
        return _audit(rest)
    if cmd == "reproduce":
        from nlgbias.runner import main as run_main

        return run_main(rest)
    if cmd == "lm":
        from nlgbias.lm.__main__ import main as lm_main

        return lm_main(rest)
    from nlgbias.resources import main as res_main

    return res_main(rest)


if __name__ == "__main__":
    sys.exit(main())

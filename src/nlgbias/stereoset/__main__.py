"""``python -m nlgbias.stereoset score --predictions FILE [--gold FILE] [--out FILE]``.

Scores a predictions file in the official StereoSet format (``{"intrasentence": [{"id",
"score"}], "intersentence": [...]}``, ids are sentence ids) exactly as the official
``evaluation.py`` (Nadeem et al. 2021, §6.2) and writes the official results structure.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys

from nlgbias.datasets import DataFormatError
from nlgbias.stereoset.evaluation import evaluate, load_gold, pretty, read_predictions


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m nlgbias.stereoset",
                                 description="StereoSet scorer (identical to the official one).")
    sub = ap.add_subparsers(dest="command", required=True)
    sc = sub.add_parser("score", help="score a predictions file")
    sc.add_argument("--predictions", required=True, help="predictions JSON (official format)")
    sc.add_argument("--gold", default=None,
                    help="gold JSON (official format); default: the resolved StereoSet dev.json")
    sc.add_argument("--split", default="dev", choices=["dev", "test"],
                    help="which resolved gold file to use when --gold is not given")
    sc.add_argument("--out", default=None, help="write the results JSON here (default: stdout)")
    sc.add_argument("--allow-missing", action="store_true",
                    help="score only the CATs whose three sentences all have a score")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        gold = load_gold(args.gold, split=args.split)
        scores = read_predictions(args.predictions)
        results = evaluate(gold, scores, allow_missing=args.allow_missing)
    except (FileNotFoundError, DataFormatError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.out:
        from nlgbias.io import write_json

        write_json(results, args.out)
        print(pretty(results))
        print(f"wrote {args.out}")
    else:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

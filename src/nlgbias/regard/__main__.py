"""``python -m nlgbias.regard train [--encoder minilm] [--seeds 0 1 2 3 4] [--alpha A] [--out DIR]``:
train the regard classifier on ``train.tsv`` as the reproduction does (one MLP head per seed in a
soft vote, alpha chosen on dev unless given), print its dev and test accuracy and save it with
its model card (default ``data/models/regard/``)."""

from __future__ import annotations

import argparse
import logging

from nlgbias.datasets.regard import load_regard_annotations
from nlgbias.metrics import regard as R
from nlgbias.regard.experiments import train_classifier, vote_seeds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m nlgbias.regard", description=__doc__)
    ap.add_argument("command", choices=["train"])
    ap.add_argument("--encoder", default=R.DEFAULT_ENCODER, help="'minilm' or a hub id / encoder folder")
    ap.add_argument("--seeds", type=int, nargs="+", default=vote_seeds(),
                    help="the heads' seeds (default: the reproduction's five)")
    ap.add_argument("--alpha", type=float, default=None, help="MLP L2 penalty (default: best on dev)")
    ap.add_argument("--out", default=None, help="folder (default data/models/regard/)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    clf = train_classifier(load_regard_annotations(), R.Encoder(args.encoder), seeds=args.seeds,
                           alpha=args.alpha, profile="command")
    folder = clf.save(args.out)
    print(f"{clf.card['head']}: dev {clf.card['dev_accuracy_vote']:.3f}, test {clf.card['test_accuracy_vote']:.3f} "
          f"(vote of seeds {', '.join(map(str, args.seeds))}); saved to {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

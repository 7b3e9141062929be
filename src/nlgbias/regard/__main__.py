"""``python -m nlgbias.regard train [--encoder minilm] [--seed 0] [--alpha A] [--out DIR]``:
train the regard classifier on ``train.tsv`` (alpha chosen on dev unless given), print its dev
and test accuracy and save it with its model card (default ``data/models/regard/``)."""

from __future__ import annotations

import argparse
import logging

from nlgbias.datasets.regard import load_regard_annotations
from nlgbias.metrics import regard as R
from nlgbias.regard.experiments import splits


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m nlgbias.regard", description=__doc__)
    ap.add_argument("command", choices=["train"])
    ap.add_argument("--encoder", default=R.DEFAULT_ENCODER, help="'minilm' or a hub id / encoder folder")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--alpha", type=float, default=None, help="MLP L2 penalty (default: best on dev)")
    ap.add_argument("--out", default=None, help="folder (default data/models/regard/)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    sp = splits(load_regard_annotations())
    enc = R.Encoder(args.encoder)
    alpha = args.alpha
    if alpha is None:
        alpha = float(R.select_alpha(sp["train"], sp["dev"], encoder=enc, seeds=[args.seed]).loc[0, "alpha"])
    clf = R.fit(sp["train"]["text"], sp["train"]["label"], encoder=enc, seed=args.seed, alpha=alpha,
                card={"train_file": "train.tsv"})
    clf.card["dev_accuracy"] = round(clf.accuracy(sp["dev"]["text"], sp["dev"]["label"]), 4)
    clf.card["test_accuracy"] = round(clf.accuracy(sp["test"]["text"], sp["test"]["label"]), 4)
    folder = clf.save(args.out)
    print(f"alpha {alpha:g}: dev {clf.card['dev_accuracy']:.3f}, test {clf.card['test_accuracy']:.3f}; saved to {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The regard data of Sheng et al. 2019 (§3): annotations, prompts (Table 2) and the paper's
own generated samples."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from nlgbias.datasets.base import DataFormatError
from nlgbias.resources import resolve

REGARD_SPLITS = ("train", "dev", "test", "train_other")
REGARD_LABELS = {-1: "negative", 0: "neutral", 1: "positive", 2: "other"}


def _read_regard_tsv(file: Path) -> pd.DataFrame:
    rows = []
    text = file.read_text(encoding="utf-8")
    if not text.strip():
        raise DataFormatError(f"{file}: file is empty")
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        label, sep, sentence = line.partition("\t")
        try:
            value = int(label)
        except ValueError:
            value = None
        if not sep or value not in REGARD_LABELS or not sentence.strip():
            raise DataFormatError(
                f"{file}: line {lineno} should be 'LABEL<TAB>text' with LABEL in -1/0/1/2, got {line[:60]!r}")
        rows.append((value, sentence))
    return pd.DataFrame(rows, columns=["label", "text"])


def load_regard_annotations(splits: tuple[str, ...] = REGARD_SPLITS, path: str | Path | None = None,
                            ) -> pd.DataFrame:
    """The regard annotations of Sheng et al. 2019 (§3): columns ``split, label, label_name, text``.

    Labels -1 negative, 0 neutral, 1 positive, 2 other (``train_other`` only); the demographic
    is masked as ``XYZ``. Counts: train 212, dev 60, test 30, train_other 235.
    """
    folder = resolve("regard", path)
    parts = []
    for split in splits:
        if split not in REGARD_SPLITS:
            raise ValueError(f"unknown regard split {split!r}; choose from {', '.join(REGARD_SPLITS)}")
        df = _read_regard_tsv(folder / f"{split}.tsv")
        df.insert(0, "split", split)
        parts.append(df)
    out = pd.concat(parts, ignore_index=True)
    out.insert(2, "label_name", out["label"].map(REGARD_LABELS))
    return out


def load_regard_prompts(path: str | Path | None = None) -> pd.DataFrame:
    """Regard prompts (Sheng et al. 2019, Table 1): demographic × template, with the context
    (``respect`` or ``occupation``). Columns ``demographic, context, template, prompt``."""
    folder = resolve("regard", path)
    demos = [d.strip() for d in (folder / "demographics.txt").read_text().splitlines() if d.strip()]
    tmpl = pd.read_csv(folder / "templates.tsv", sep="\t")
    if list(tmpl.columns) != ["context", "template"]:
        raise DataFormatError(f"{folder / 'templates.tsv'}: expected columns context, template")
    rows = [(d, c, t, t.replace("XYZ", d)) for d in demos for c, t in tmpl.itertuples(index=False)]
    return pd.DataFrame(rows, columns=["demographic", "context", "template", "prompt"])

"""StereoSet (Nadeem et al. 2021, §2): Context Association Tests in the official format."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from nlgbias.datasets.base import DataFormatError, _read_json
from nlgbias.resources import resolve

STEREOSET_LABELS = ("stereotype", "anti-stereotype", "unrelated")


def load_stereoset(split: str = "dev", path: str | Path | None = None) -> pd.DataFrame:
    """StereoSet CATs (Nadeem et al. 2021, §2): one row per Context Association Test.

    Columns ``task`` (intrasentence / intersentence), ``id, target, bias_type, context`` and,
    for each gold label, the sentence and its id: ``stereotype, stereotype_id,
    anti_stereotype, anti_stereotype_id, unrelated, unrelated_id``.
    Dev: 2,106 intrasentence and 2,123 intersentence CATs.
    """
    if split not in ("dev", "test"):
        raise ValueError(f"unknown StereoSet split {split!r}; choose 'dev' or 'test'")
    return read_stereoset_file(resolve("stereoset", path) / f"{split}.json")


def read_stereoset_file(file: str | Path, require_both: bool = True) -> pd.DataFrame:
    """Parse one StereoSet file in the official format (``{"data": {"intrasentence": [...],
    "intersentence": [...]}}``) into the rows of :func:`load_stereoset`. With
    ``require_both=False`` a file holding only one of the two tasks is accepted."""
    file = Path(file)
    if not file.exists():
        raise FileNotFoundError(f"StereoSet file {file} does not exist")
    obj = _read_json(file)
    data = obj.get("data") if isinstance(obj, dict) else None
    tasks = ("intrasentence", "intersentence")
    ok = isinstance(data, dict) and (set(tasks) <= set(data) if require_both else set(tasks) & set(data))
    if not ok:
        raise DataFormatError(f"{file}: expected {{'data': {{'intrasentence': [...], 'intersentence': [...]}}}}")
    rows = []
    for task in tasks:
        for i, cat in enumerate(data.get(task, [])):
            try:
                row = {"task": task, "id": cat["id"], "target": cat["target"],
                       "bias_type": cat["bias_type"], "context": cat["context"]}
                sents = {s["gold_label"]: s for s in cat["sentences"]}
            except (KeyError, TypeError) as exc:
                raise DataFormatError(f"{file}: {task} CAT #{i} lacks field {exc}") from exc
            if set(sents) != set(STEREOSET_LABELS) or len(cat["sentences"]) != 3:
                raise DataFormatError(
                    f"{file}: {task} CAT {cat['id']} should have one sentence per gold label "
                    f"{STEREOSET_LABELS}, has {[s.get('gold_label') for s in cat['sentences']]}")
            for label in STEREOSET_LABELS:
                col = label.replace("-", "_")
                try:
                    row[col] = sents[label]["sentence"]
                    row[f"{col}_id"] = sents[label]["id"]
                except KeyError as exc:
                    raise DataFormatError(f"{file}: {task} CAT #{i} lacks field {exc}") from exc
            rows.append(row)
    return pd.DataFrame(rows)

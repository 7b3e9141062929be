"""CrowS-Pairs (Nangia et al. 2020): 1,508 minimal sentence pairs, one more and one less
stereotyping, over nine bias types."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from nlgbias.datasets.base import DataFormatError
from nlgbias.resources import resolve

CROWS_COLUMNS = ("sent_more", "sent_less", "stereo_antistereo", "bias_type")
DIRECTIONS = ("stereo", "antistereo")


def load_crows_pairs(path: str | Path | None = None) -> pd.DataFrame:
    """CrowS-Pairs pairs: columns ``pair_id, sent_more, sent_less, stereo_antistereo, bias_type``.

    ``sent_more`` is the more stereotyping sentence (about the historically disadvantaged group
    when ``stereo_antistereo`` is "stereo"; for "antistereo" pairs ``sent_less`` violates a
    stereotype of that group). 1,508 pairs: race-color 516, gender 262, socioeconomic 172,
    nationality 159, religion 105, age 87, sexual-orientation 84, physical-appearance 63,
    disability 60.
    """
    file = resolve("crows_pairs", path) / "crows_pairs_anonymized.csv"
    try:
        df = pd.read_csv(file)
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
        raise DataFormatError(f"{file}: not a readable CSV ({exc})") from exc
    missing = [c for c in CROWS_COLUMNS if c not in df.columns]
    if missing:
        raise DataFormatError(f"{file}: missing column(s) {missing}; have {list(df.columns)}")
    bad = df[~df["stereo_antistereo"].isin(DIRECTIONS)]
    if len(bad):
        raise DataFormatError(f"{file}: row {bad.index[0]} has stereo_antistereo "
                              f"{bad['stereo_antistereo'].iloc[0]!r}; expected one of {DIRECTIONS}")
    empty = df[df["sent_more"].isna() | df["sent_less"].isna()]
    if len(empty):
        raise DataFormatError(f"{file}: row {empty.index[0]} has an empty sentence")
    out = df[list(CROWS_COLUMNS)].copy()
    out.insert(0, "pair_id", [f"crows-{i}" for i in range(len(out))])
    return out.reset_index(drop=True)

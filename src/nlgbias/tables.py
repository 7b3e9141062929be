"""Tables: every reproduced table is saved as CSV plus a Markdown rendering under ``results/``."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd

from nlgbias.io import write_csv, write_text

log = logging.getLogger(__name__)


def to_markdown(df: pd.DataFrame, floatfmt: str = ".3f", title: str | None = None) -> str:
    """A GitHub-flavoured Markdown rendering of ``df`` (index dropped unless named)."""
    keep_index = any(n is not None for n in df.index.names)
    shown = df.reset_index() if keep_index else df
    cells = pd.DataFrame({c: _format_column(shown[c], floatfmt) for c in shown.columns})
    align = ["right" if pd.api.types.is_numeric_dtype(shown[c]) and not pd.api.types.is_bool_dtype(shown[c])
             else "left" for c in shown.columns]
    body = cells.to_markdown(index=False, disable_numparse=True, colalign=align)
    return (f"### {title}\n\n" if title else "") + body + "\n"


def _format_column(col: pd.Series, floatfmt: str) -> list[str]:
    """Integers as integers, floats with ``floatfmt``, missing values empty."""
    def fmt(v) -> str:
        if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA:
            return ""
        if isinstance(v, (bool, np.bool_)):
            return str(bool(v))
        if isinstance(v, (int, np.integer)):
            return f"{int(v):,}"
        if isinstance(v, (float, np.floating)):
            return format(float(v), floatfmt)
        return str(v).replace("\n", " ").replace("|", "\\|")
    return [fmt(v) for v in col.tolist()]


def save_table(df: pd.DataFrame, folder: str | Path, name: str, *, title: str | None = None,
               floatfmt: str = ".3f") -> dict[str, Path]:
    """Write ``<folder>/<name>.csv`` and ``<folder>/<name>.md``; return both paths."""
    folder = Path(folder)
    out = df.reset_index() if any(n is not None for n in df.index.names) else df
    csv = write_csv(out, folder / f"{name}.csv")
    md = write_text(to_markdown(df, floatfmt=floatfmt, title=title), folder / f"{name}.md")
    log.info("wrote %s and %s", csv, md)
    return {"csv": csv, "md": md}


def paper_vs_run(paper: pd.DataFrame, run: pd.DataFrame, on: list[str], value: str = "value",
                 ) -> pd.DataFrame:
    """Join the paper's numbers with this run's on ``on``: columns ``paper``, ``this run``, ``diff``.

    Both frames hold the key columns ``on`` and a ``value`` column. Rows the paper does not
    report keep ``paper`` empty.
    """
    merged = run.rename(columns={value: "this run"}).merge(
        paper.rename(columns={value: "paper"}), on=on, how="outer")
    merged["diff"] = merged["this run"] - merged["paper"]
    return merged[[*on, "paper", "this run", "diff"]]

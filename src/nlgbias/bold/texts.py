"""The text sources notebooks 03 and 04 score (BOLD, Dhamala et al. 2021, §5-6).

- **WIKI**: the full Wikipedia sentence of every BOLD prompt (all 23,679, or a per-group
  sample for a smoke run). Notebook 02's ``bold__wiki.parquet`` holds only the prompts it
  sampled, so the WIKI source is read from the dataset itself.
- **models**: every ``bold__<model_slug>.parquet`` notebook 02 wrote (its ``text`` column:
  prompt + continuation), labelled with the file's ``model`` column (the model's display name).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from nlgbias.bold.sources import sample_per_group
from nlgbias.datasets.bold import load_bold
from nlgbias.io import read_table
from nlgbias.models import display_name, model_slug

log = logging.getLogger(__name__)

WIKI = "WIKI"
COLUMNS = ["source", "domain", "group", "name", "text"]
PREFIX = "bold__"


def wiki_texts(bold: pd.DataFrame | None = None, per_group: int | None = None,
               seed: int = 0) -> pd.DataFrame:
    """The WIKI source: BOLD's Wikipedia sentences as ``text`` (:data:`COLUMNS`), all of them if
    ``per_group`` is None or 0, else up to ``per_group`` per group
    (:func:`nlgbias.bold.sources.sample_per_group`, drawn with ``seed``)."""
    bold = load_bold() if bold is None else bold
    df = bold.rename(columns={"wiki_text": "text"})[["domain", "group", "name", "text"]]
    df = sample_per_group(df, per_group or None, seed)
    return df.assign(source=WIKI)[COLUMNS].reset_index(drop=True)


def generation_files(generations: str | Path) -> dict[str, Path]:
    """``{slug: path}`` of every ``bold__<slug>.parquet`` in ``generations`` except
    ``bold__wiki`` (the WIKI rows come from the full BOLD sentences instead)."""
    out = {}
    for p in sorted(Path(generations).glob(f"{PREFIX}*.parquet")):
        slug = p.stem[len(PREFIX):]
        if slug.lower() != "wiki":
            out[slug] = p
    return out


def model_texts(path: str | Path, label: str | None = None) -> pd.DataFrame:
    """One model's generations (:data:`COLUMNS`), labelled ``label`` or the file's ``model``
    column (the file name's slug if it has none). Missing columns are an error naming them."""
    df = read_table(path)
    need = {"domain", "group", "text"}
    if not need <= set(df.columns):
        raise ValueError(f"{Path(path).name}: needs columns {sorted(need)} (notebook 02's "
                         f"output), has {list(df.columns)}")
    if label is None:
        models = df["model"].dropna().unique() if "model" in df.columns else []
        label = str(models[0]) if len(models) == 1 else Path(path).stem[len(PREFIX):]
    out = df.assign(source=label, name=df["name"] if "name" in df.columns else "")
    out["text"] = out["text"].fillna("").astype(str)
    return out[COLUMNS].reset_index(drop=True)


def load_sources(generations: str | Path, models: Sequence[str] | None = None, *,
                 wiki_per_group: int | None = None, seed: int = 0,
                 bold: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """``{source: frame}`` (:data:`COLUMNS`): WIKI first, then every model of notebook 02 in
    ``generations`` (only ``models`` if given: registered names, hub ids or local folders, found
    by :func:`nlgbias.models.model_slug`; a requested model without a file is an error)."""
    files = generation_files(generations)
    out = {WIKI: wiki_texts(bold, wiki_per_group, seed)}
    if models:
        wanted = {model_slug(m): display_name(m) for m in models}
        missing = [m for m, s in zip(models, wanted) if s not in files]
        if missing:
            raise FileNotFoundError(
                f"no generations for {', '.join(map(str, missing))} in {Path(generations).name}/ "
                f"(have: {', '.join(files) or 'none'}); run notebook 02 with these models first")
        for slug, label in wanted.items():
            out[label] = model_texts(files[slug], label)
    else:
        for path in files.values():
            df = model_texts(path)
            out[str(df["source"].iloc[0]) if len(df) else path.stem[len(PREFIX):]] = df
    return out


def source_counts(sources: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Texts per domain (rows, with a ``total``) and source (columns)."""
    n = pd.DataFrame({s: df["domain"].value_counts() for s, df in sources.items()}
                     ).fillna(0).astype(int)
    n.loc["total"] = n.sum()
    n.index.name = "domain"
    return n


__all__ = ["COLUMNS", "WIKI", "generation_files", "load_sources", "model_texts",
           "source_counts", "wiki_texts"]

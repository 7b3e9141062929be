"""The text sources notebooks 03 and 04 score (BOLD, Dhamala et al. 2021, §5-6).

- **WIKI**: the full Wikipedia sentence of every BOLD prompt (all 23,679, or a per-group
  sample for a smoke run). Notebook 02's ``bold__wiki.parquet`` holds only the prompts it
  sampled, so the WIKI source is read from the dataset itself.
- **models**: every ``bold__<model_slug>.parquet`` notebook 02 wrote (its ``text`` column:
  prompt + continuation), labelled with the file's ``model`` column (the model's display name).

**Text preparation** (§3.3: "During metrics calculation we anonymize the prompts"): every BOLD
metric (sentiment, toxicity, gender polarity, the norms, regard) scores the texts of
:func:`prepare_sources` / :func:`load_prepared`: ``text`` is the anonymised text
(:func:`nlgbias.bold.prompts.anonymize`: person names -> ``Person``, profession / religion /
ideology terms -> ``XYZ``), ``text_raw`` the original and ``anonymiser`` the anonymiser's
version. Anonymised once per text, cached under ``<cache_root>/anon-v<version>/<source>/``
(a new anonymiser version never reuses an older cache). The metric code calls
:func:`require_prepared`, which refuses raw texts; the raw-text numbers are computed only on
request, from ``text_raw``, as a stated sensitivity row.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from nlgbias.bold.prompts import anonymize
from nlgbias.bold.sources import add_prompt_ids, sample_per_group
from nlgbias.datasets.bold import load_bold
from nlgbias.io import read_table
from nlgbias.lm import parse_model_spec
from nlgbias.models import model_slug
from nlgbias.scoring import score_texts

log = logging.getLogger(__name__)

WIKI = "WIKI"
#: the text after the prompt: a model's generated continuation, or the rest of a WIKI sentence
CONTINUATION = "continuation"
COLUMNS = ["source", "domain", "group", "name", "text"]
PREFIX = "bold__"
#: bumped whenever the anonymiser changes: prepared texts (and the scores cached on them) of an
#: older anonymiser are not reused
ANONYMISER_VERSION = 2
ANONYMISER = f"anon-v{ANONYMISER_VERSION}"
KEY_COLUMNS = ["domain", "group", "name", "text"]


def wiki_texts(bold: pd.DataFrame | None = None, per_group: int | None = None,
               seed: int = 0) -> pd.DataFrame:
    """The WIKI source: BOLD's Wikipedia sentences as ``text`` (:data:`COLUMNS`), all of them if
    ``per_group`` is None or 0, else up to ``per_group`` per group
    (:func:`nlgbias.bold.sources.sample_per_group`, drawn with ``seed``)."""
    bold = load_bold() if bold is None else bold
    if "prompt_id" not in bold.columns:
        bold = add_prompt_ids(bold)
    df = bold.rename(columns={"wiki_text": "text"})
    cols = ["domain", "group", "name", "text", "prompt_id"]
    if "prompt" in df.columns:  # the sentence after its prompt: the WIKI twin of a continuation
        df = df.assign(continuation=[continuation_of(t, p) for t, p in zip(df["text"], df["prompt"])])
        cols.append(CONTINUATION)
    df = sample_per_group(df[cols], per_group or None, seed)
    return df.assign(source=WIKI)[[*COLUMNS, *cols[4:]]].reset_index(drop=True)


def continuation_of(text: str, prompt: str) -> str:
    """``text`` without its leading ``prompt`` (stripped); ``text`` itself if it does not start
    with the prompt.

    >>> continuation_of("Debbie Allen was born in Houston.", "Debbie Allen was")
    'born in Houston.'
    """
    text, prompt = str(text), str(prompt)
    return text[len(prompt):].strip() if prompt and text.startswith(prompt) else text


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
    if "generation" in out.columns:  # the generated continuation alone (text = prompt + it)
        out[CONTINUATION] = out["generation"].fillna("").astype(str).str.strip()
    # prompt_id pairs a generation with the WIKI sentence of its prompt (paired tests)
    return out[[*COLUMNS, *[c for c in ("prompt_id", CONTINUATION) if c in out.columns]]
               ].reset_index(drop=True)


def load_sources(generations: str | Path, models: Sequence[str] | None = None, *,
                 wiki_per_group: int | None = None, seed: int = 0,
                 bold: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """``{source: frame}`` (:data:`COLUMNS`): WIKI first, then every model of notebook 02 in
    ``generations`` (only ``models`` if given: registered names, hub ids or local folders, found
    by :func:`nlgbias.models.model_slug`; a requested model without a file is an error)."""
    files = generation_files(generations)
    out = {WIKI: wiki_texts(bold, wiki_per_group, seed)}
    if models:
        wanted = {parse_model_spec(m).slug: parse_model_spec(m).display for m in models}
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


# --------------------------------------------------------------------------- preparation
def _anonymise_chunk(chunk: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"text_anon": anonymize(chunk, text_col="text").tolist()})


def prepare(df: pd.DataFrame, cache_dir: str | Path | None = None,
            chunk_size: int = 4000) -> pd.DataFrame:
    """One source's texts ready for the metrics: ``text`` anonymised (§3.3), the original in
    ``text_raw``, ``anonymiser`` = :data:`ANONYMISER`. With ``cache_dir`` the anonymised texts
    are cached there (keyed by domain, group, name and raw text; resumable). A frame that is
    already prepared is returned unchanged (never anonymised twice)."""
    if is_prepared(df):
        return df
    df = df.reset_index(drop=True)
    if cache_dir is None:
        anon = anonymize(df, text_col="text")
    else:
        anon = score_texts(df, KEY_COLUMNS, _anonymise_chunk, cache_dir, chunk_size=chunk_size,
                           desc="anonymise", progress=False)["text_anon"]
    return df.assign(text_raw=df["text"].fillna("").astype(str), text=anon.to_numpy(),
                     anonymiser=ANONYMISER)


def prepare_sources(sources: dict[str, pd.DataFrame], cache_root: str | Path | None = None,
                    chunk_size: int = 4000) -> dict[str, pd.DataFrame]:
    """:func:`prepare` every source (cache ``<cache_root>/anon-v<version>/<source slug>/``)."""
    return {src: prepare(df, None if cache_root is None else
                         Path(cache_root) / ANONYMISER / model_slug(src), chunk_size)
            for src, df in sources.items()}


def load_prepared(generations: str | Path, models: Sequence[str] | None = None, *,
                  cache_root: str | Path | None, wiki_per_group: int | None = None,
                  seed: int = 0, bold: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """:func:`load_sources` then :func:`prepare_sources`: what every BOLD metric scores."""
    return prepare_sources(load_sources(generations, models, wiki_per_group=wiki_per_group,
                                        seed=seed, bold=bold), cache_root)


def continuations(sources: dict[str, pd.DataFrame], cache_root: str | Path | None = None,
                  chunk_size: int = 4000, paired_only: bool = True) -> dict[str, pd.DataFrame]:
    """The continuation alone of every source's texts, prepared for the metrics like the full
    texts (:func:`prepare`: ``text`` = the anonymised continuation, ``text_raw`` = the raw one;
    anonymised on its own, cached under ``<cache_root>/anon-v<version>/continuation/<source>/``).

    A model row's continuation is its generated text without the prompt; a WIKI row's is its
    sentence after the prompt (:func:`continuation_of`). With ``paired_only`` WIKI keeps only the
    prompts some model source generated from (what a paired comparison needs); a source without
    a ``continuation`` column is left out, and so is WIKI when no model shares its prompts."""
    model_ids: set = set()
    for src, df in sources.items():
        if src != WIKI and "prompt_id" in df.columns:
            model_ids |= set(df["prompt_id"].dropna())
    out = {}
    for src, df in sources.items():
        if CONTINUATION not in df.columns:
            continue
        d = df[df["prompt_id"].isin(model_ids)] if src == WIKI and paired_only else df
        if not len(d):
            continue
        d = d.drop(columns=[c for c in ("text", "text_raw", "anonymiser") if c in d.columns])
        d = d.assign(text=d[CONTINUATION].fillna("").astype(str)).reset_index(drop=True)
        cache = (None if cache_root is None else
                 Path(cache_root) / ANONYMISER / CONTINUATION / model_slug(src))
        out[src] = prepare(d, cache, chunk_size)
    return out


WIKI_CUT = "wiki_cut"


def cut_to_words(text: str, continuation: str, words: int) -> str | None:
    """``text`` (a prompt followed by ``continuation``) with its continuation cut to its first
    ``words`` words (whitespace-separated; the prompt's own spacing kept); ``text`` unchanged
    when the continuation has no more words; ``None`` when ``text`` does not end with
    ``continuation`` (no prompt to keep).

    >>> cut_to_words("Debbie Allen was born in Houston, Texas.", "born in Houston, Texas.", 2)
    'Debbie Allen was born in'
    >>> cut_to_words("Debbie Allen was born.", "born.", 5)
    'Debbie Allen was born.'
    """
    text, continuation = str(text).rstrip(), str(continuation).strip()
    if not continuation or not text.endswith(continuation) or len(continuation) == len(text):
        return None
    parts = continuation.split()
    if len(parts) <= words:
        return text
    return (text[:len(text) - len(continuation)] + " ".join(parts[:words])).rstrip()


def cut_to_shorter(sources: dict[str, pd.DataFrame], cache_root: str | Path | None = None,
                   chunk_size: int = 4000) -> dict[str, pd.DataFrame]:
    """Each model's continuation and WIKI's on the same prompt, both cut to the shorter of the
    two (in words), so that the words compared match: for every model source of ``sources``
    (prepared frames with ``prompt_id`` and ``continuation``; sample 0 of a model), the prompts
    it shares with WIKI, each side's scored text = prompt + its continuation cut to
    ``words compared`` = min(model words, WIKI words) (the paper scores prompt + continuation).
    Rows carry ``model source``, ``cut side`` (``model`` or WIKI; ``source`` is the model or
    WIKI), ``model words`` and ``WIKI words`` (before the cut) and ``words compared``. Prepared
    like the rest (anonymised; cached under ``<cache_root>/anon-v<version>/wiki_cut/<source>/``
    and ``.../wiki_cut/<source>-model/``). Keys: ``<source>`` (its WIKI twins) and
    ``<source> (cut model)`` (its own texts). A text that does not end with its continuation is
    left out, and so is its twin."""
    wiki = sources.get(WIKI)
    if wiki is None or CONTINUATION not in wiki.columns:
        return {}
    w = wiki.drop_duplicates("prompt_id").set_index("prompt_id")
    out = {}
    for src, df in sources.items():
        if src == WIKI or CONTINUATION not in df.columns or "prompt_id" not in df.columns:
            continue
        m = df[df["sample"] == 0] if "sample" in df.columns else df
        m = m.dropna(subset=["prompt_id"]).drop_duplicates("prompt_id").set_index("prompt_id")
        ids = m.index.intersection(w.index)
        if not len(ids):
            continue
        k = m.loc[ids, CONTINUATION].fillna("").astype(str).str.split().str.len().to_numpy()
        kw = w.loc[ids, CONTINUATION].fillna("").astype(str).str.split().str.len().to_numpy()
        both = np.minimum(k, kw)
        sides = {}
        for side, frame in (("model", m), (WIKI, w)):
            d = frame.loc[ids].reset_index()
            raw = d["text_raw"] if "text_raw" in d.columns else d["text"]
            d["text"] = [cut_to_words(t, c, int(n)) for t, c, n in zip(raw, d[CONTINUATION], both,
                                                                        strict=True)]
            d["model source"], d["cut side"] = src, side
            d["model words"], d["WIKI words"], d["words compared"] = k, kw, both
            sides[side] = d
        keep = sides["model"]["text"].notna().to_numpy() & sides[WIKI]["text"].notna().to_numpy()
        for side, key, slug in (("model", f"{src} (cut model)", f"{model_slug(src)}-model"),
                                (WIKI, src, model_slug(src))):
            d = sides[side][keep].drop(
                columns=[c for c in ("text_raw", "anonymiser") if c in sides[side].columns])
            cache = None if cache_root is None else Path(cache_root) / ANONYMISER / WIKI_CUT / slug
            out[key] = prepare(d.reset_index(drop=True), cache, chunk_size)
    return out


def is_prepared(df: pd.DataFrame) -> bool:
    """Whether every row of ``df`` is anonymised by the current anonymiser."""
    return ("text_raw" in df.columns and "anonymiser" in df.columns
            and bool((df["anonymiser"] == ANONYMISER).all()))


def require_prepared(df: pd.DataFrame, what: str = "a BOLD metric") -> pd.DataFrame:
    """``df`` if it is prepared (:func:`is_prepared`), else a ValueError: BOLD's metrics are
    computed on anonymised texts (§3.3)."""
    if not is_prepared(df):
        have = sorted(set(df["anonymiser"].astype(str))) if "anonymiser" in df.columns else "none"
        raise ValueError(f"{what} scores anonymised texts only (BOLD §3.3): pass texts from "
                         f"nlgbias.bold.texts.prepare_sources / load_prepared "
                         f"(anonymiser {ANONYMISER}; these texts: {have})")
    return df


def metric_texts(df: pd.DataFrame, raw: bool = False, what: str = "a BOLD metric") -> pd.Series:
    """The texts a BOLD metric scores: the anonymised ``text`` of a prepared frame
    (:func:`require_prepared`), or with ``raw=True`` its original ``text_raw`` (only for a
    stated raw-text sensitivity row)."""
    require_prepared(df, what)
    return (df["text_raw"] if raw else df["text"]).fillna("").astype(str)


def source_counts(sources: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Texts per domain (rows, with a ``total``) and source (columns)."""
    n = pd.DataFrame({s: df["domain"].value_counts() for s, df in sources.items()}
                     ).fillna(0).astype(int)
    n.loc["total"] = n.sum()
    n.index.name = "domain"
    return n


__all__ = ["ANONYMISER", "ANONYMISER_VERSION", "COLUMNS", "CONTINUATION", "WIKI",
           "WIKI_CUT", "continuation_of", "continuations", "cut_to_words", "generation_files",
           "is_prepared", "load_prepared", "load_sources", "model_texts", "prepare",
           "metric_texts", "prepare_sources", "require_prepared", "source_counts", "cut_to_shorter", "wiki_texts"]

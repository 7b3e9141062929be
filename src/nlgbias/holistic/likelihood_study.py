"""Notebook 07's likelihood-bias study (HolisticBias, Smith et al. 2022, §3.3.2, §4.1; Table 2,
Figure 2, Table 3): the samples it scores, the per-model perplexities, the tables and the
sentences of prose that report them.

- :func:`dataset_table`: Table 2 (the released files' counts beside the paper's);
- :func:`perplexity_samples`: the Figure 2 sample (every descriptor, a few templates each) and
  Table 3's ("I love [PLURAL NOUN PHRASE]." with descriptors of 6-19 characters);
- :func:`score_models`: the perplexity of each sentence under each model (cached, resumable);
- :func:`figure2_tables`, :func:`table3_all`, :func:`pooled_shares`: the tables;
- ``*_text``: generated prose, every number from the values it reports.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from nlgbias.holistic import likelihood_bias as L
from nlgbias.holistic import paper


def dataset_table(version: str = "v1.0") -> tuple[pd.DataFrame, str]:
    """Table 2 of v1.0 and v1.1 beside the paper's row, and a sentence on ``version``."""
    from nlgbias.datasets.holisticbias import holistic_bias_counts

    counts = pd.DataFrame([holistic_bias_counts(v) for v in ("v1.0", "v1.1")])
    t2 = counts.assign(**{"paper terms": paper.TABLE2["terms"], "paper axes": paper.TABLE2["axes"],
                          "paper templates": paper.TABLE2["templates"],
                          "paper sentences": paper.TABLE2["sentences"]})
    c = counts.set_index("version").loc[version]
    text = (f"{version} has {c['descriptor_entries']} descriptor entries and {c['standalone_noun_phrases']} "
            f"standalone noun phrases ({c['distinct_terms']} distinct terms; the paper counts "
            f"{paper.TABLE2['terms']} terms), {c['axes']} axes, {c['templates']} templates, {c['nouns']} nouns "
            f"and {c['sentences']:,} sentences; the paper reports {paper.TABLE2['sentences']:,} sentences "
            f"'ignoring stylistic variations' ({c['sentences'] - paper.TABLE2['sentences']:+,}); the sentence "
            "count follows the reference generator. The recount is graded against the paper's numbers below.")
    return t2, text


def perplexity_samples(sentences: pd.DataFrame, cfg: Mapping, seed: int = 0
                       ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(Figure 2 sample, Table 3 sample) of ``sentences`` with the sizes of ``cfg`` (notebook
    07's resolved parameters ``ppl_*`` and ``table3_*``; None = all)."""
    from nlgbias.datasets.holisticbias import sample_sentences

    fig2 = sample_sentences(sentences, descriptors_per_axis=cfg["ppl_descriptors_per_axis"],
                            templates=cfg["ppl_templates"], nouns=cfg["ppl_nouns"], seed=seed,
                            templates_per_descriptor=cfg["ppl_templates_per_descriptor"])
    fig2 = add_nonce_sentences(fig2, sentences, cfg.get("ppl_nonce_sentences"), seed=seed)
    t3 = sample_sentences(sentences, templates=[paper.TABLE3_TEMPLATE], nouns=cfg["table3_nouns"],
                          descriptors_per_axis=cfg["table3_descriptors_per_axis"], seed=seed)
    return fig2, L.length_filter(t3, paper.TABLE3_MIN_CHARS, paper.TABLE3_MAX_CHARS)


def add_nonce_sentences(fig2: pd.DataFrame, sentences: pd.DataFrame, per_descriptor: int | None, *,
                        seed: int = 0) -> pd.DataFrame:
    """The Figure 2 sample with its Nonce descriptors topped up to ``per_descriptor`` sentences each
    (seeded draw from the dataset's Nonce sentences, those already sampled kept; None or 0: as
    sampled): the Nonce rows' interval is mostly the sentences' own noise, so more sentences per
    Nonce descriptor, seconds of perplexity, are where their power is."""
    from nlgbias.datasets.holisticbias import sample_sentences

    if not per_descriptor or "nonce" not in set(sentences["axis"]):
        return fig2
    have = fig2[fig2["axis"] == "nonce"]
    counts = have.groupby("descriptor").size()
    pool = sentences[sentences["axis"] == "nonce"]
    if "prompt_id" not in pool.columns:  # the dataset's sentences: every Nonce sentence, with its stable id
        pool = sample_sentences(pool, seed=seed)
    pool = pool[~pool["prompt_id"].isin(set(fig2["prompt_id"]))]
    pool = pool.sample(frac=1.0, random_state=seed)
    want = per_descriptor - pool["descriptor"].map(counts).fillna(0).astype(int)
    extra = pool[pool.groupby("descriptor").cumcount() < want]
    return pd.concat([fig2, extra[fig2.columns.intersection(extra.columns)]], ignore_index=True)


def score_models(samples: Sequence[pd.DataFrame], models: Sequence[str], processed: str | Path,
                 cache: str | Path, *, version: str = "v1.0", batch_size: int = 32,
                 timings: dict | None = None) -> pd.DataFrame:
    """Perplexity of every sentence of ``samples`` (deduplicated) under each of ``models``
    (:func:`nlgbias.holistic.responses.score_perplexity`), written per model to
    ``<processed>/holistic/perplexity__<slug>.parquet``; the frames concatenated. ``timings``
    gets one entry per model (seconds)."""
    from nlgbias.holistic import responses as H
    from nlgbias.io import write_parquet
    from nlgbias.lm import parse_model_spec

    to_score = pd.concat(list(samples)).drop_duplicates("prompt_id").reset_index(drop=True)
    frames = []
    for m in models:
        t = time.perf_counter()
        df = H.score_perplexity(to_score, m, cache, version=version, batch_size=batch_size)
        write_parquet(df, H.perplexity_path(processed, m))
        if timings is not None:
            timings[f"perplexity {parse_model_spec(m).display}"] = time.perf_counter() - t
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def sample_text(ppl: pd.DataFrame, fig2: pd.DataFrame, t3: pd.DataFrame, cfg: Mapping) -> str:
    """What was scored, and each model's median perplexity."""
    summary = ppl.groupby("model", sort=False)["perplexity"].median()
    return (f"Scored {ppl['prompt_id'].nunique():,} sentences per model: a seeded sample for Figure 2 of "
            f"{fig2['descriptor'].nunique()} descriptors over all {fig2['axis'].nunique()} axes, "
            f"{cfg['ppl_templates_per_descriptor'] or 'every'} of the {fig2['template'].nunique()} templates per "
            f"descriptor (drawn at random), up to {cfg['ppl_nouns'] or 'all'} nouns ({len(fig2):,} sentences), "
            f"and for Table 3 {t3['descriptor'].nunique()} descriptors of {paper.TABLE3_MIN_CHARS}-"
            f"{paper.TABLE3_MAX_CHARS} characters ({cfg['table3_descriptors_per_axis'] or 'all'} per axis) with "
            f"'{paper.TABLE3_TEMPLATE}' x up to {cfg['table3_nouns'] or 'all'} nouns ({len(t3):,} sentences; "
            "the paper used every noun). "
            + (f"The Nonce descriptors are topped up to {cfg['ppl_nonce_sentences']} sentences each (the Nonce rows' "
               "power rests on the sentences per descriptor). " if cfg.get("ppl_nonce_sentences") else "")
            + " ".join(f"{m}: median perplexity {v:.1f}." for m, v in summary.items()))


def figure2_tables(ppl_fig2: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Median perplexity by axis and by template (columns: models) of the Figure 2 sample."""
    by_axis = ppl_fig2.pivot_table(index="axis", columns="model", values="perplexity", aggfunc="median")
    by_template = ppl_fig2.pivot_table(index="template", columns="model", values="perplexity",
                                       aggfunc="median")
    return by_axis.reset_index(), by_template.sort_values(by_template.columns[0]).reset_index()


def table3_all(ppl: pd.DataFrame, *, alpha: float = 0.05, correction: str = "holm", n_boot: int = 1000,
               seed: int = 0) -> tuple[pd.DataFrame, list]:
    """Table 3 of every model (:func:`nlgbias.holistic.likelihood_bias.table3` on the sentences
    of the Table 3 template) beside the paper's GPT-2 row, and the claims on it
    (:func:`nlgbias.holistic.claims.table3_claims`: the descriptor is the unit of its test)."""
    from nlgbias.holistic.claims import table3_claims

    rows, tables, frames = [], {}, {}
    for m in ppl["model"].unique():
        d = ppl[(ppl["model"] == m) & (ppl["template"] == paper.TABLE3_TEMPLATE)]
        t3 = L.table3(d, alpha=alpha, correction=correction, min_chars=paper.TABLE3_MIN_CHARS,
                      max_chars=paper.TABLE3_MAX_CHARS)
        tables[m] = t3
        frames[m] = L.length_filter(d, paper.TABLE3_MIN_CHARS, paper.TABLE3_MAX_CHARS)
        rows.append(t3.assign(model=m))
    claims = table3_claims(tables, frames, alpha=alpha, n_boot=n_boot, seed=seed)[0]
    gpt2 = paper.table3("GPT-2").rename(columns={"sig_share": "paper GPT-2 sig", "low_ppl": "paper GPT-2 low ppl",
                                                 "high_ppl": "paper GPT-2 high ppl"})
    table = pd.concat(rows, ignore_index=True).merge(gpt2, on="axis", how="left")
    table = table[["model", "axis", "n_descriptors", "n_pairs", "sig_share", "sig_share_corrected", "sig_share_bh",
                   "family", "low_ppl", "high_ppl", "paper GPT-2 sig", "paper GPT-2 low ppl",
                   "paper GPT-2 high ppl"]]
    table = table.rename(columns={"sig_share": "sig", "sig_share_corrected": f"sig ({correction})",
                                  "sig_share_bh": "sig (fdr_bh)"})
    table.insert(1, "method", f"Mann-Whitney U, alpha={alpha}; model = offline stand-in for GPT-2")
    return table, claims


def pooled_shares(table3: pd.DataFrame, correction: str = "holm") -> pd.DataFrame:
    """Per model, the shares of significant pairs pooled over axes (weighted by pairs):
    uncorrected, after ``correction`` and after Benjamini-Hochberg."""
    cols = ["sig", f"sig ({correction})", "sig (fdr_bh)"]
    w = table3.groupby("model", sort=False)["n_pairs"].sum()
    return table3[cols].mul(table3["n_pairs"], axis=0).groupby(table3["model"], sort=False).sum().div(w, axis=0)


def table3_text(pooled: pd.DataFrame, *, alpha: float, correction: str, nouns: int | None) -> str:
    """The pooled shares in words, and why the corrected share is small at few nouns."""
    few = bool(nouns) and bool((pooled.iloc[:, 1] < pooled.iloc[:, 0] / 2).all())
    none_left = bool((pooled.iloc[:, 1] == 0).all())
    p_min = 2 / math.comb(2 * nouns, nouns) if nouns else float("nan")  # exact two-sided, n vs n, no ties
    return ("Pairs differing at " + f"{alpha}, pooled over axes (each axis's descriptor pairs are one family): "
            + "; ".join(f"{m} {r.iloc[0]:.0%} uncorrected, {r.iloc[1]:.0%} after {correction}, {r.iloc[2]:.0%} "
                        "after Benjamini-Hochberg" for m, r in pooled.iterrows())
            + (f". With {nouns} sentences for most descriptors (the sample's setting; a few have one or two more) "
               f"the smallest exact Mann-Whitney p-value is {p_min:.3f} ({nouns} vs {nouns}), so {correction} (family-wise) "
               + ("removes all of the significant pairs by construction" if none_left else
                  "removes most of the significant pairs") if few else "")
            + ". The claims below use the uncorrected shares, as the paper did.")


__all__ = ["dataset_table", "figure2_tables", "perplexity_samples", "pooled_shares", "sample_text",
           "score_models", "table3_all", "table3_text"]

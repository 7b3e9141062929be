"""Before/after tables of bias-reduction tuning (HolisticBias §5.3, Tables 4, 7, 8, 9, 10).

Every function takes response frames (one per model: original, tuned at a β, no-tag ablation)
with the columns ``template``, ``descriptor``, ``axis`` and the style columns, and computes the
paper's metrics with :mod:`nlgbias.holistic.genbias`:

- :func:`gen_bias_rows`: Full Gen Bias and Partial / Summed-Cluster Gen Bias per style cluster
  (Tables 4, 7, 8), one row per model;
- :func:`axis_reduction`: Full Gen Bias per axis before and after, with the reduction (Table 9);
- :func:`bootstrap_reduction`: the reduction of Full Gen Bias with a percentile interval from
  resampling descriptors (paired: the same descriptors for both models);
- :func:`offensive_rows`: share of responses the offensiveness classifier flags (Table 10);
- :func:`verdict_table`: the generated "what replicates, what does not" table.

Examples:
    >>> import pandas as pd
    >>> df = pd.DataFrame({"template": ["t"] * 4, "descriptor": ["a", "a", "b", "b"],
    ...                    "s1": [1.0, 0.5, 0.0, 0.5], "s2": [0.0, 0.5, 1.0, 0.5]})
    >>> round(full_gen_bias_fast(df, ["s1", "s2"], scale=1), 4)
    0.125
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from nlgbias.holistic import genbias as G


def _template_means(frame: pd.DataFrame, styles: Sequence[str]) -> dict[str, pd.DataFrame]:
    means = G.mean_style(frame, styles)
    return {t: g.droplevel(0) for t, g in means.groupby(level=0, sort=True)}


def _fgb_weighted(tm: dict[str, pd.DataFrame], weights: pd.Series, scale: float) -> float:
    """Full Gen Bias with descriptor multiplicities ``weights`` (a bootstrap resample)."""
    per_t = []
    for g in tm.values():
        w = weights.reindex(g.index).fillna(0).to_numpy()
        if w.sum() == 0:
            continue
        x = g.to_numpy()
        mu = (w[:, None] * x).sum(0) / w.sum()
        per_t.append(float((w[:, None] * (x - mu) ** 2).sum() / w.sum()))
    return float(np.mean(per_t)) * scale if per_t else float("nan")


def full_gen_bias_fast(frame: pd.DataFrame, styles: Sequence[str], scale: float = G.SCALE) -> float:
    """Full Gen Bias (population variance), as :func:`genbias.full_gen_bias`, via the weighted
    form the bootstrap uses (equal weights)."""
    tm = _template_means(frame, styles)
    descriptors = pd.Index(sorted({d for g in tm.values() for d in g.index}))
    return _fgb_weighted(tm, pd.Series(1.0, index=descriptors), scale)


def bootstrap_reduction(original: pd.DataFrame, tuned: pd.DataFrame, styles: Sequence[str], *,
                        n_boot: int = 1000, ci: float = 0.95, seed: int = 0,
                        scale: float = G.SCALE) -> dict:
    """Relative reduction of Full Gen Bias, 1 - FGB(tuned) / FGB(original), with a percentile
    interval from resampling the descriptors with replacement (the same resample for both).

    Returns ``{"original", "tuned", "reduction", "lo", "hi", "n_descriptors", "n_boot"}``.
    """
    if not 0 < ci < 1:
        raise ValueError(f"ci must be in (0, 1), got {ci}")
    to, tt = _template_means(original, styles), _template_means(tuned, styles)
    desc = sorted(set(original["descriptor"]) & set(tuned["descriptor"]))
    if len(desc) < 2:
        raise ValueError("need at least two descriptors measured for both models")
    index = pd.Index(desc)
    ones = pd.Series(1.0, index=index)
    fo, ft = _fgb_weighted(to, ones, scale), _fgb_weighted(tt, ones, scale)
    rng = np.random.default_rng(seed)
    red = np.empty(n_boot)
    for i in range(n_boot):
        w = pd.Series(np.bincount(rng.integers(0, len(desc), len(desc)), minlength=len(desc)).astype(float),
                      index=index)
        red[i] = 1 - _fgb_weighted(tt, w, scale) / _fgb_weighted(to, w, scale)
    lo, hi = np.nanquantile(red, [(1 - ci) / 2, 1 - (1 - ci) / 2])
    return {"original": fo, "tuned": ft, "reduction": 1 - ft / fo, "lo": float(lo), "hi": float(hi),
            "n_descriptors": len(desc), "n_boot": n_boot, "ci": ci}


def gen_bias_rows(frames: Mapping[str, pd.DataFrame], styles: Sequence[str],
                  clusters: Mapping[str, Sequence[str]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(Tables 4/7, Table 8): per model the Full Gen Bias and the Partial Gen Bias per cluster;
    per model the Summed-Cluster Gen Bias per cluster (all x1000)."""
    full, summed = [], []
    for label, f in frames.items():
        partial = G.partial_gen_bias(f, clusters)
        full.append({"model": label, "full_gen_bias": G.full_gen_bias(f, styles), **partial.to_dict()})
        summed.append({"model": label, **G.summed_cluster_gen_bias(f, clusters).to_dict()})
    return pd.DataFrame(full), pd.DataFrame(summed)


def axis_reduction(original: pd.DataFrame, tuned: pd.DataFrame, styles: Sequence[str],
                   axis: str = "axis", min_descriptors: int = 2) -> pd.DataFrame:
    """Table 9: Full Gen Bias per axis before and after, and the reduction 1 - after/before.

    Axes with fewer than ``min_descriptors`` descriptors (no variance across descriptors) are
    left out."""
    n = original.groupby(axis)["descriptor"].nunique()
    keep = n[n >= min_descriptors].index
    original, tuned = original[original[axis].isin(keep)], tuned[tuned[axis].isin(keep)]
    if original.empty:
        return pd.DataFrame(columns=[axis, "descriptors", "original", "tuned", "reduction"])
    before = G.gen_bias_by(original, styles, axis)
    after = G.gen_bias_by(tuned, styles, axis)
    out = pd.DataFrame({"original": before, "tuned": after}).dropna()
    out["reduction"] = 1 - out["tuned"] / out["original"]
    out.insert(0, "descriptors", n.reindex(out.index).astype(int))
    return out.rename_axis(axis).reset_index()


def offensive_rows(frames: Mapping[str, pd.DataFrame], column: str = "offensive") -> pd.DataFrame:
    """Table 10: share of responses flagged offensive (``column`` is boolean) per model."""
    rows = []
    for label, f in frames.items():
        if column not in f.columns:
            raise KeyError(f"responses of {label!r} lack the {column!r} column")
        rows.append({"model": label, "responses": len(f), "offensive": float(f[column].mean())})
    return pd.DataFrame(rows)


def verdict_table(boot: Mapping[str, Mapping], axis_table: pd.DataFrame, offensive: pd.DataFrame,
                  cost: pd.DataFrame, *, tuned: str, original: str, ablation: str | None,
                  paper_reduction: Mapping[str, float], paper_axis_share: float,
                  paper_offensive: Mapping[str, float]) -> pd.DataFrame:
    """The "what replicates, what does not" table of §5.3 (columns ``section, claim, paper,
    this run, verdict``), every cell from the computed values.

    ``boot``: label -> :func:`bootstrap_reduction` (the tuned model and the ablation); a
    reduction "reproduces" when its 95% interval lies above 0; ``cost``: rows ``model, text,
    perplexity``.
    """
    rows = []
    b = boot[tuned]
    rows.append({
        "section": "§5.3.1, Table 4", "claim": "bias tuning lowers Full Gen Bias",
        "paper": f"-{100 * paper_reduction['DialoGPT']:.0f}% DialoGPT, "
                 f"-{100 * paper_reduction['BB2 3B']:.0f}% BB2 3B",
        "this run": f"{b['original']:.2f} -> {b['tuned']:.2f} ({100 * -b['reduction']:+.0f}%, 95% CI over "
                    f"{b['n_descriptors']} descriptors {100 * -b['hi']:+.0f}% to {100 * -b['lo']:+.0f}%)",
        "verdict": "reproduced" if b["lo"] > 0 else "differs"})
    if ablation is not None:
        a = boot[ablation]
        rows.append({
            "section": "§5.3.1, Table 7", "claim": "tuning without tags does not lower Full Gen Bias",
            "paper": "mostly no decrease, often an increase",
            "this run": f"{a['original']:.2f} -> {a['tuned']:.2f} ({100 * -a['reduction']:+.0f}%, 95% CI "
                        f"{100 * -a['hi']:+.0f}% to {100 * -a['lo']:+.0f}%)",
            "verdict": "reproduced" if a["lo"] <= 0 else "differs"})
    n_big = int((axis_table["reduction"] > 0.10).sum())
    rows.append({
        "section": "§5.3.1, Table 9", "claim": "double-digit % drop of Full Gen Bias on most axes",
        "paper": f"{100 * paper_axis_share:.0f}% of axes (BB2 3B)",
        "this run": f"{n_big} of {len(axis_table)} axes with >= 2 held-out descriptors",
        "verdict": ("not comparable" if axis_table.empty else
                    "reproduced" if n_big >= len(axis_table) / 2 else "differs")})
    off = offensive.set_index("model")["offensive"]
    rows.append({
        "section": "§5.3.1, Table 10", "claim": "offensiveness changes only slightly (< 2 points)",
        "paper": ", ".join(f"{k} {100 * v:.1f}%" for k, v in paper_offensive.items()),
        "this run": f"{100 * off[original]:.1f}% -> {100 * off[tuned]:.1f}%",
        "verdict": "reproduced" if abs(off[tuned] - off[original]) < 0.02 else "differs"})
    c = cost.pivot_table(index="text", columns="model", values="perplexity")
    rows.append({
        "section": "§5.3.2, Table 5", "claim": "humans rate tuned and original responses alike",
        "paper": "win rates 45-52%, none significant",
        "this run": "no human evaluation possible; perplexity original -> tuned: "
                    + "; ".join(f"{t} {c.loc[t, original]:.2f} -> {c.loc[t, tuned]:.2f}" for t in c.index),
        "verdict": "not comparable"})
    return pd.DataFrame(rows)


def clusters_from_table(table: pd.DataFrame) -> dict[str, list[str]]:
    """Notebook 07's ``holistic_style_clusters`` table (``cluster`` and a ``styles ...`` column of
    emoji glyphs joined by spaces) as ``{cluster: ["s:<emoji>", ...]}``."""
    col = next((c for c in table.columns if str(c).startswith("styles")), None)
    if "cluster" not in table.columns or col is None:
        raise KeyError("style cluster table needs the columns 'cluster' and 'styles ...'; has "
                       f"{', '.join(map(str, table.columns))}")
    return {str(c): [f"s:{g}" for g in str(v).split()] for c, v in zip(table["cluster"], table[col], strict=True)}


def cap_pairs(frame: pd.DataFrame, n: int | None, seed: int = 0,
              by: Sequence[str] = ("descriptor", "template")) -> pd.DataFrame:
    """At most ``n`` (descriptor, template) pairs of ``frame`` (all rows of each), drawn at
    random with ``seed``; ``n=None`` keeps every pair."""
    pairs = frame[list(by)].drop_duplicates()
    if n is None or len(pairs) <= n:
        return frame
    keep = pairs.sample(n=n, random_state=seed)
    return frame.merge(keep, on=list(by), how="inner")


__all__ = ["axis_reduction", "bootstrap_reduction", "cap_pairs", "clusters_from_table",
           "full_gen_bias_fast", "gen_bias_rows", "offensive_rows", "verdict_table"]

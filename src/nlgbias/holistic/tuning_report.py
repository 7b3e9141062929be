"""Before/after tables of bias-reduction tuning (HolisticBias §5.3, Tables 4, 7, 8, 9, 10).

Every function takes response frames (one per model: original, tuned at a β, no-tag ablation)
with the columns ``template``, ``descriptor``, ``axis`` and the style columns, and computes the
paper's metrics with :mod:`nlgbias.holistic.genbias`:

- :func:`gen_bias_rows`: Full Gen Bias and Partial / Summed-Cluster Gen Bias per style cluster
  (Tables 4, 7, 8), one row per model;
- :func:`axis_reduction`: Full Gen Bias per axis before and after, with the reduction (Table 9);
- :func:`seed_bootstrap` / :func:`change_interval`: Full Gen Bias of the original and of each
  group of tuned models (one per tuning seed), with an interval that resamples the held-out
  descriptors and the tuning seeds, so that it holds the seed-to-seed (and CPU-to-CPU)
  variation of tuning; :func:`select_beta` chooses β on the validation descriptors;
- :func:`offensive_rows`: share of responses the offensiveness classifier flags (Table 10).

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


def _weighted_fgb(tm: dict[str, pd.DataFrame], desc: pd.Index, w: np.ndarray, scale: float) -> np.ndarray:
    """Full Gen Bias for each row of descriptor multiplicities ``w`` (n_boot x len(desc))."""
    out = np.zeros(len(w))
    n_t = np.zeros(len(w))
    for g in tm.values():
        cols = desc.get_indexer(g.index)
        keep = cols >= 0
        x = g.to_numpy(dtype=float)[keep]
        ww = w[:, cols[keep]]
        tot = ww.sum(1, keepdims=True)
        ok = tot[:, 0] > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            mu = (ww @ x) / tot
            var = np.maximum((ww @ (x * x)) / tot - mu * mu, 0.0).sum(1)
        out += np.where(ok, var, 0.0)
        n_t += ok
    with np.errstate(invalid="ignore", divide="ignore"):
        return out / n_t * scale


def _null_expectation(frame: pd.DataFrame, styles: Sequence[str], desc: pd.Index, w: np.ndarray,
                      scale: float) -> np.ndarray:
    """The permutation null's expected Full Gen Bias (descriptors shuffled within template, cell
    sizes kept), exactly, for each row of descriptor multiplicities ``w`` (a copy of a descriptor
    is a cell of its own). Within a template of N responses whose style vectors have total
    variance s2 (population, summed over styles), a cell of n responses drawn without replacement
    has a mean of variance s2 / n * (N - n) / (N - 1), two cells' means a covariance of
    -s2 / (N - 1); the expected variance across D cells of their means (about their plain mean)
    is then mean_d Var(m_d) - Var(mean_d m_d). Averaged over the templates, times ``scale``."""
    out = np.zeros(len(w))
    n_t = np.zeros(len(w))
    x_all = frame[list(styles)].to_numpy(dtype=float)
    for _t, g in frame.groupby("template", sort=True):
        x = x_all[frame.index.get_indexer(g.index)] if frame.index.is_unique else g[list(styles)].to_numpy(float)
        d = g["descriptor"].to_numpy()
        cols = desc.get_indexer(pd.unique(d))
        keep = cols >= 0
        names = pd.unique(d)[keep]
        if not len(names):
            continue
        n = np.array([(d == k).sum() for k in names], dtype=float)
        ssum = np.stack([x[d == k].sum(0) for k in names])
        sq = np.array([(x[d == k] ** 2).sum() for k in names])
        ww = w[:, cols[keep]]
        big_n = ww @ n
        dd = ww.sum(1)
        with np.errstate(invalid="ignore", divide="ignore"):
            s2 = (ww @ sq) / big_n - (((ww @ ssum) / big_n[:, None]) ** 2).sum(1)
            var_d = s2[:, None] / n[None, :] * (big_n[:, None] - n[None, :]) / (big_n[:, None] - 1)
            sum_var = (ww * var_d).sum(1)
            var_bar = (sum_var - dd * (dd - 1) * s2 / (big_n - 1)) / dd ** 2
            e = sum_var / dd - var_bar
        ok = (dd > 1) & (big_n > 1)
        out += np.where(ok, e, 0.0)
        n_t += ok
    with np.errstate(invalid="ignore", divide="ignore"):
        return out / n_t * scale


def seed_bootstrap(original: pd.DataFrame, groups: Mapping[str, Sequence[pd.DataFrame]],
                   styles: Sequence[str], *, n_boot: int = 1000, seed: int = 0,
                   within: str | None = "axis", scale: float = G.SCALE, null_of=None) -> dict:
    """Full Gen Bias of the original model and of each group of tuned models (one frame per
    tuning seed), with a two-level bootstrap that carries both sources of variation a rerun
    on another CPU has: the held-out **descriptors** are resampled (the same draw for every
    model; within ``within``, e.g. axis) and, independently for each group, the **tuning
    seeds** are resampled with replacement. Draws come from
    :func:`nlgbias.holistic.genbias.resample_counts` (the project's one bootstrap).

    Returns ``{"descriptors": n, "original": FGB, "groups": {name: {"per_seed": [...],
    "mean": ...}}, "boot_original": array, "boot": {name: array of the seed-mean FGB per
    replicate}}``; :func:`change_interval` turns them into relative changes and differences.
    ``null_of``: a function of a frame (restricted to the common descriptors) giving its
    permutation-null mean of Full Gen Bias; where given, every value (point and bootstrap draw)
    is the excess over that frame's null, and the null is resampled with the descriptors: each
    draw's null is the point's plus the change of the null's exact expectation
    (:func:`_null_expectation`) from the point's descriptors to the draw's.
    """
    frames = [original, *[f for fs in groups.values() for f in fs]]
    common = set(original["descriptor"])
    for f in frames[1:]:
        common &= set(f["descriptor"])
    desc = pd.Index(sorted(common))
    if len(desc) < 2:
        raise ValueError("need at least two descriptors measured for every model")
    strata = None
    if within is not None and within in original.columns:
        strata = original.drop_duplicates("descriptor").set_index("descriptor")[within].reindex(desc).to_numpy()
    w = G.resample_counts(len(desc), n_boot=n_boot, seed=seed, strata=strata)
    ones = np.ones((1, len(desc)))

    def fgb(f: pd.DataFrame) -> tuple[float, np.ndarray]:
        sub = f[f["descriptor"].isin(desc)]
        tm = _template_means(sub, styles)
        off, off_b = 0.0, 0.0
        if null_of is not None:
            off = float(null_of(sub))
            e = _null_expectation(sub.reset_index(drop=True), styles, desc, np.vstack([ones, w]), scale)
            off_b = off + (e[1:] - e[0])
        return float(_weighted_fgb(tm, desc, ones, scale)[0]) - off, _weighted_fgb(tm, desc, w, scale) - off_b

    o_point, o_boot = fgb(original)
    rng = np.random.default_rng([seed, 1])
    out = {"descriptors": len(desc), "n_boot": n_boot, "original": o_point, "boot_original": o_boot,
           "groups": {}, "boot": {}}
    for name, fs in groups.items():
        pts, boots = zip(*(fgb(f) for f in fs), strict=True)
        boots = np.stack(boots)  # seeds x n_boot
        draw = rng.integers(0, len(fs), size=(n_boot, len(fs)))
        out["groups"][name] = {"per_seed": list(pts), "mean": float(np.mean(pts)),
                               "sd": float(np.std(pts, ddof=1)) if len(pts) > 1 else float("nan"),
                               "seeds": len(fs)}
        out["boot"][name] = boots[draw, np.arange(n_boot)[:, None]].mean(1)
    return out


def change_interval(res: Mapping, name: str, versus: str | None = None, *, relative: bool = True,
                    per_original: bool = False, level: float = 0.95, denominator: Mapping | None = None) -> dict:
    """From :func:`seed_bootstrap`: the change of Full Gen Bias of group ``name`` against the
    original (``versus=None``) or against group ``versus`` — relative (``tuned / base - 1``),
    absolute (``tuned - base``), or, with ``per_original``, the difference in units of the
    original's Full Gen Bias (``(tuned - base) / original``, e.g. tagged minus untagged
    tuning as a share of the untuned value) — with its percentile interval. ``denominator``:
    another :func:`seed_bootstrap` result on the same descriptors and seed (the same draws) whose
    original value divides the difference instead (with ``per_original``; e.g. a change of the
    excess over the null as a share of the original's Full Gen Bias, which stays positive where
    the original's excess does not)."""
    def pick(k):
        if k is None:
            return res["original"], res["boot_original"]
        return res["groups"][k]["mean"], res["boot"][k]
    a, ab = pick(name)
    b, bb = pick(versus)
    a, b = np.float64(a), np.float64(b)  # a zero base gives an undefined (NaN) change, not an error
    den = res if denominator is None else denominator
    with np.errstate(invalid="ignore", divide="ignore"):
        if per_original:
            est, dist = (a - b) / den["original"], (ab - bb) / den["boot_original"]
        else:
            est = a / b - 1 if relative else a - b
            dist = ab / bb - 1 if relative else ab - bb
    lo, hi = (np.nanquantile(dist, [(1 - level) / 2, 1 - (1 - level) / 2])
              if not np.isnan(dist).all() else (np.nan, np.nan))
    return {"estimate": float(est), "lo": float(lo), "hi": float(hi), "base": float(b), "value": float(a),
            "denominator": float(den["original"]) if per_original else float(b),
            "descriptors": res["descriptors"], "pvalue": float(min(1.0, 2 * min(np.nanmean(dist <= 0),
                                                                          np.nanmean(dist >= 0))))}


def select_beta(scores: pd.DataFrame, metric: str = "full_gen_bias", split: str = "val") -> float:
    """The paper's rule (App. B.2: the β whose tuned model has the lowest Full Gen Bias),
    applied to the **validation** descriptors only (rows with ``split == "val"``), so the test
    descriptors that judge the chosen model play no part in choosing it. ``scores``: columns
    ``beta``, ``split``, ``metric``."""
    from nlgbias.holistic.bias_labels import choose_beta

    if "split" not in scores.columns:
        raise KeyError("select_beta needs a 'split' column: choose β on validation scores only")
    val = scores[scores["split"] == split]
    if val.empty:
        raise ValueError(f"no {split!r} rows to choose β on")
    return choose_beta(val, metric)


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


__all__ = ["axis_reduction", "cap_pairs", "change_interval", "clusters_from_table",
           "full_gen_bias_fast", "gen_bias_rows", "offensive_rows", "seed_bootstrap", "select_beta"]

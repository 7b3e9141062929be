"""Analyses of Sheng et al. 2019 (§4 Table 5, Figure 1; §5 Figure 2) and BOLD Table 5 (§4.3, §6.3)."""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from nlgbias.metrics.regard import LABEL_OF
from nlgbias.regard import paper
from nlgbias.stats import (
    adjust_pvalues,
    bootstrap_interval,
    bootstrap_means,
    chi2_proportions,
    format_p,
    percentile_interval,
    two_proportion_ztest,
)

log = logging.getLogger(__name__)

LABEL_NAMES = {-1: "negative", 0: "neutral", 1: "positive"}
SHORT = {"The Black person": "Black", "The White person": "White", "The man": "man",
         "The woman": "woman", "The gay person": "gay", "The straight person": "straight"}
PAIRS = [("The Black person", "The White person"), ("The man", "The woman"),
         ("The gay person", "The straight person")]


def table4(ann: pd.DataFrame, paper_table4: pd.DataFrame) -> pd.DataFrame:
    """Sheng Table 4 recounted: texts per split and label (the ``other`` label, 2, left out),
    beside the paper's counts (``<column> (paper)``); ``matches paper``: same total and negatives."""
    counts = (ann[ann["label"] != 2].groupby(["split", "label_name"]).size().unstack(fill_value=0)
              .reindex(["train", "dev", "test"])[["negative", "neutral", "positive"]])
    counts["total"] = counts.sum(axis=1)
    out = counts.reset_index().merge(paper_table4, on="split", suffixes=("", " (paper)"))
    out["matches paper"] = (out["total"] == out["total (paper)"]) & (out["negative"] == out["negative (paper)"])
    return out


def spearman_table(both: pd.DataFrame, cols: dict[str, tuple[str, str]]) -> pd.DataFrame:
    """Spearman's rho between label columns of ``both`` by context (respect, occupation, both),
    Sheng Table 5. ``cols``: row name -> (column a, column b); ``n`` texts per context."""
    rows = []
    for name, (a, b) in cols.items():
        row = {"comparison": name}
        for ctx in ("respect", "occupation", "both"):
            sub = both if ctx == "both" else both[both["context"] == ctx]
            sub = sub.dropna(subset=[a, b])
            row[ctx] = float(sps.spearmanr(sub[a], sub[b]).statistic) if len(sub) > 2 else np.nan
            row[f"n_{ctx}"] = len(sub)
        rows.append(row)
    return pd.DataFrame(rows)


def table5_vs_paper(ours: pd.DataFrame) -> pd.DataFrame:
    """Our Table 5 rows beside the paper's (long: comparison, context, paper, this run, diff, n)."""
    long = ours.melt(id_vars="comparison", value_vars=["respect", "occupation", "both"],
                     var_name="context", value_name="this run")
    n = ours.melt(id_vars="comparison", value_vars=["n_respect", "n_occupation", "n_both"],
                  var_name="context", value_name="n")
    n["context"] = n["context"].str.removeprefix("n_")
    pap = paper.TABLE5.melt(id_vars="comparison", var_name="context", value_name="paper")
    out = long.merge(n, on=["comparison", "context"]).merge(pap, on=["comparison", "context"], how="left")
    out["diff"] = out["this run"] - out["paper"]
    return out[["comparison", "context", "paper", "this run", "diff", "n"]]


def accuracy_summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Per model: mean, sd, min, max of dev and test accuracy over runs (Figure 1), with the
    per-seed values as text. ``runs``: columns ``model, seed, dev, test``."""
    g = runs.groupby("model", sort=False)
    out = pd.DataFrame({
        "runs": g.size(),
        "dev_mean": g["dev"].mean(), "dev_sd": g["dev"].std(ddof=0),
        "test_mean": g["test"].mean(), "test_sd": g["test"].std(ddof=0),
        "dev_per_seed": g["dev"].agg(lambda s: " ".join(f"{v:.3f}" for v in s)),
        "test_per_seed": g["test"].agg(lambda s: " ".join(f"{v:.3f}" for v in s)),
    }).reset_index()
    return out


def accuracy_interval(pred: Sequence, gold: Sequence, *, n_boot: int = 2000, seed: int = 0) -> dict:
    """Accuracy of ``pred`` against ``gold`` with a seeded percentile bootstrap 95 % interval over
    the examples (``nlgbias.stats.bootstrap_interval`` of the per-example correctness; Figure 1's
    test accuracy). Gold labels may be ints (-1/0/1/2) or names. Returns ``{"accuracy", "lo", "hi", "n"}``."""
    pred = np.asarray(pred)
    gold = np.array([v if isinstance(v, str) else LABEL_OF.get(v, v) for v in gold])  # as RegardClassifier.accuracy
    if pred.shape != gold.shape:
        raise ValueError(f"pred and gold differ in length: {pred.shape} vs {gold.shape}")
    correct = pred == gold
    lo, hi = bootstrap_interval(correct, n_boot=n_boot, seed=seed)
    return {"accuracy": float(correct.mean()), "lo": lo, "hi": hi, "n": int(correct.size)}


def label_distribution(df: pd.DataFrame, label_col: str, by: Sequence[str] = ("source", "context", "demographic"),
                       *, n_boot: int = 2000, seed: int = 0, seed_cols: Sequence[str] = ()) -> pd.DataFrame:
    """Share of each label (negative/neutral/positive) per group with n and a seeded percentile
    bootstrap 95 % interval ``share_lo``/``share_hi`` (texts resampled within the group,
    ``nlgbias.stats.bootstrap_interval``; the same seed for every group and label, so a rerun gives
    the same bytes) (Figure 2 bars). ``label_col`` holds label names. ``seed_cols``: each
    classifier seed's own labels; then ``seed_min`` / ``seed_max`` give the seeds' range of
    each share and the interval is widened to hold it (the seeds' spread sits inside it)."""
    by = list(by)
    counts = df.groupby([*by, label_col], sort=False).size().rename("count").reset_index()
    full = (counts.pivot_table(index=by, columns=label_col, values="count", fill_value=0, sort=False)
            .reindex(columns=list(LABEL_NAMES.values()), fill_value=0))
    long = full.stack().rename("count").reset_index().rename(columns={label_col: "label"})
    long["n"] = long.groupby(by)["count"].transform("sum")
    long["share"] = long["count"] / long["n"]
    texts = {k if isinstance(k, tuple) else (k,): g[label_col].to_numpy()
             for k, g in df.groupby(by, sort=False)}
    bounds = [bootstrap_interval(texts[tuple(k)] == lab, n_boot=n_boot, seed=seed)
              for k, lab in zip(long[by].itertuples(index=False, name=None), long["label"], strict=True)]
    long["share_lo"] = [b[0] for b in bounds]
    long["share_hi"] = [b[1] for b in bounds]
    if seed_cols:
        per = np.column_stack([
            [float((texts_s[tuple(k)] == lab).mean()) for k, lab in
             zip(long[by].itertuples(index=False, name=None), long["label"], strict=True)]
            for texts_s in ({k if isinstance(k, tuple) else (k,): g[c].to_numpy()
                             for k, g in df.groupby(by, sort=False)} for c in seed_cols)])
        long["seed_min"], long["seed_max"] = per.min(axis=1), per.max(axis=1)
        long["share_lo"] = np.minimum(long["share_lo"], long["seed_min"])
        long["share_hi"] = np.maximum(long["share_hi"], long["seed_max"])
    return long


#: how the pair tests' p-values are computed (named in each table and claim that uses them)
PAIR_TEST = ("exact permutation test within template (the pair's demographic labels permuted "
             "within each prompt template: the conditional distribution of the count, a sum of "
             "hypergeometrics; two-sided)")


def template_permutation_p(samples: pd.DataFrame, label_col: str, label: str, a: str, b: str,
                           ) -> float:
    """Two-sided p-value of "``label``'s share is the same for demographics ``a`` and ``b``" when
    the samples cluster by prompt template (Sheng Table 2: both demographics of a pair get the
    same templates): the demographic labels are permuted within each template, so a template's
    own pull on the label cancels and only the within-template contrast counts. Exact: under
    that permutation the number of ``a``'s samples with the label is a sum over templates of
    independent hypergeometric counts; the p-value is the probability of a difference of shares
    at least as far from its null mean as the observed one. ``samples``: one source and context,
    columns ``demographic, template, <label_col>`` (a missing template is one stratum).

    >>> df = pd.DataFrame({"demographic": ["A"] * 4 + ["B"] * 4, "template": ["t1", "t2"] * 4,
    ...                    "y": ["neg"] * 4 + ["pos"] * 4})
    >>> round(template_permutation_p(df, "y", "neg", "A", "B"), 4)  # 2 * (1/6)^2
    0.0556
    """
    s = samples[samples["demographic"].isin([a, b])]
    if not len(s):
        return float("nan")
    y = (s[label_col] == label).to_numpy()
    isa = (s["demographic"] == a).to_numpy()
    na, nb = int(isa.sum()), int((~isa).sum())
    if not na or not nb:
        return float("nan")
    strata = s["template"].fillna("").to_numpy() if "template" in s else np.zeros(len(s))
    dist = np.array([1.0])
    for t in pd.unique(strata):
        m = strata == t
        tot, pos, draw = int(m.sum()), int(y[m].sum()), int(isa[m].sum())
        k = np.arange(0, min(pos, draw) + 1)
        pmf = sps.hypergeom.pmf(k, tot, pos, draw)
        dist = np.convolve(dist, pmf)
    x = np.arange(len(dist))
    tot_pos = int(y.sum())
    d = x / na - (tot_pos - x) / nb
    obs = float(y[isa].mean() - y[~isa].mean())
    mean = float((dist * d).sum())
    extreme = np.abs(d - mean) >= abs(obs - mean) - 1e-12
    return float(min(1.0, dist[extreme].sum()))


def pair_tests(dist: pd.DataFrame, labels: Sequence[str] = ("negative", "positive"),
               by: Sequence[str] = ("source", "context"), *, samples: pd.DataFrame | None = None,
               label_col: str = "") -> pd.DataFrame:
    """Each demographic pair the paper contrasts (Black/White, man/woman, gay/straight), per group
    of ``by`` and label: the shares, their difference and a p-value. With ``samples`` (the
    scored samples, label names in ``label_col``, a ``template`` column) the p-value is
    :func:`template_permutation_p` (the samples cluster by prompt template); without them, a
    two-proportion z-test (independent samples). The column ``test`` says which.

    ``p_holm``/``p_bh`` correct ``p`` (Holm; Benjamini-Hochberg) within one family: every pair x
    label x context of one ``source`` (the first key of ``by``), named in ``family``."""
    rows = []
    for keys, sub in dist.groupby(list(by), sort=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        s = sub.set_index(["demographic", "label"])
        cell = None
        if samples is not None:
            cell = samples
            for k, v in zip(by, keys, strict=True):
                cell = cell[cell[k] == v]
        for a, b in PAIRS:
            for lab in labels:
                if (a, lab) not in s.index or (b, lab) not in s.index:
                    continue
                ra, rb = s.loc[(a, lab)], s.loc[(b, lab)]
                t = two_proportion_ztest(int(ra["count"]), int(ra["n"]), int(rb["count"]), int(rb["n"]))
                p, test = t.pvalue, "two-proportion z-test (independent samples)"
                if cell is not None:
                    p, test = template_permutation_p(cell, label_col, lab, a, b), PAIR_TEST
                rows.append({**dict(zip(by, keys, strict=True)), "label": lab,
                             "group_a": SHORT[a], "group_b": SHORT[b], "share_a": t.p1, "share_b": t.p2,
                             "diff": t.p1 - t.p2, "n_a": t.n1, "n_b": t.n2, "p": p, "test": test})
    out = pd.DataFrame(rows)
    if out.empty:
        return out.assign(p_holm=[], p_bh=[], family=[])
    fam_key = list(by)[:1]
    out["p_holm"] = np.nan
    out["p_bh"] = np.nan
    out["family"] = ""
    for key, sub in out.groupby(fam_key, sort=False):
        key = key[0] if isinstance(key, tuple) else key
        out.loc[sub.index, "p_holm"] = adjust_pvalues(sub["p"].to_numpy(), "holm")
        out.loc[sub.index, "p_bh"] = adjust_pvalues(sub["p"].to_numpy(), "fdr_bh")
        rest = [c for c in by if c not in fam_key]
        sizes = " x ".join([f"{sub[['group_a', 'group_b']].drop_duplicates().shape[0]} pairs",
                            f"{sub['label'].nunique()} labels",
                            *[f"{sub[c].nunique()} {c}s" for c in rest]])
        out.loc[sub.index, "family"] = f"Fig 2 pairs: {sizes} = {len(sub)} tests, {key}"
    return out


def pair_tests_by_metric(dists: dict[str, pd.DataFrame], samples: pd.DataFrame) -> pd.DataFrame:
    """:func:`pair_tests` of each metric's distribution with its p-values from the samples
    (:func:`template_permutation_p`), stacked with a ``metric`` column."""
    return pd.concat([pair_tests(d, samples=samples, label_col=m).assign(metric=m)
                      for m, d in dists.items()], ignore_index=True)


def with_annotated(dists: dict[str, pd.DataFrame], annotated: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Each metric's distribution with Figure 2 row (3)'s (the annotated samples: regard from the
    paper's annotations, sentiment from its sentiment annotations, as
    :func:`~nlgbias.regard.experiments.row3_samples` selects them) appended, for the figure and
    its table."""
    if not len(annotated):
        return dists
    ann = {m: label_distribution(annotated, m) for m in METRICS}
    return {m: pd.concat([d, ann[m]], ignore_index=True) for m, d in dists.items()}


def check_findings(dist: pd.DataFrame, metric: str, sources: Sequence[str],
                   samples: pd.DataFrame | None = None) -> pd.DataFrame:
    """Sheng §5's written findings (more negative regard for black/man/gay in respect, for
    black/woman/gay in occupation) checked one by one on ``dist`` (negative shares):
    direction, the gap, and the p-value (with ``samples``: :func:`template_permutation_p`, the
    samples clustering by template; without: a two-proportion z-test)."""
    rows = []
    for src in sources:
        for ctx, worse, than in paper.FIGURE2_FINDINGS.itertuples(index=False):
            s = dist[(dist["source"] == src) & (dist["context"] == ctx) & (dist["label"] == "negative")]
            s = s.set_index("demographic")
            if worse not in s.index or than not in s.index:
                continue
            a, b = s.loc[worse], s.loc[than]
            t = two_proportion_ztest(int(a["count"]), int(a["n"]), int(b["count"]), int(b["n"]))
            p = t.pvalue
            if samples is not None:
                cell = samples[(samples["source"] == src) & (samples["context"] == ctx)]
                p = template_permutation_p(cell, metric, "negative", worse, than)
            rows.append({"source": src, "metric": metric, "context": ctx,
                         "finding": f"more negative: {SHORT[worse]} > {SHORT[than]}",
                         "share_more": t.p1, "share_than": t.p2, "gap": t.p1 - t.p2, "p": p,
                         "test": PAIR_TEST if samples is not None else "two-proportion z-test",
                         "direction_holds": bool(t.p1 > t.p2),
                         "significant": bool(t.p1 > t.p2 and p < 0.05)})
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    # Holm within each source's written findings (one family per source and metric)
    out["p_holm"] = out.groupby("source", sort=False)["p"].transform(lambda p: adjust_pvalues(p.to_numpy(), "holm"))
    out["significant_holm"] = out["direction_holds"] & (out["p_holm"] < 0.05)
    return out


def bias_size(dist: pd.DataFrame) -> pd.DataFrame:
    """Mean absolute gap in negative and positive shares over the three pairs and two contexts,
    per source: the size of "overall less biased across demographic pairs" (Sheng §5)."""
    rows = []
    for src, sub in dist.groupby("source", sort=False):
        gaps = []
        for ctx in ("respect", "occupation"):
            s = sub[sub["context"] == ctx].set_index(["demographic", "label"])["share"]
            for a, b in PAIRS:
                for lab in ("negative", "positive"):
                    if (a, lab) in s.index and (b, lab) in s.index:
                        gaps.append(abs(s[(a, lab)] - s[(b, lab)]))
        rows.append({"source": src, "mean_abs_gap": float(np.mean(gaps)) if gaps else np.nan,
                     "n_gaps": len(gaps)})
    return pd.DataFrame(rows)


def bold_regard_table(texts: pd.DataFrame, label_col: str = "regard") -> pd.DataFrame:
    """BOLD Table 5 layout: per source (``model``), proportions of positive / negative regard for
    male, female, African American, European American prompts, with n per group and, where
    ``texts`` holds each classifier seed's labels, each cell's lowest and highest seed's share
    (columns ``<cell>_seed_min`` / ``<cell>_seed_max``)."""
    groups = {**paper.BOLD_GROUPS["gender"], **paper.BOLD_GROUPS["race"]}
    df = texts[texts["group"].isin(groups)].copy()
    df["g"] = df["group"].map(groups)
    rows = []
    for src, sub in df.groupby("model", sort=False):
        row = {"source": src}
        for g in groups.values():
            s = sub[sub["g"] == g]
            for lab in ("positive", "negative"):
                row[f"{lab}_{g}"] = float((s[label_col] == lab).mean()) if len(s) else np.nan
            row[f"n_{g}"] = len(s)
        # each classifier seed's own share (the labels are the seeds' vote): lowest and highest
        for g in groups.values():
            s = sub[sub["g"] == g]
            for lab in ("positive", "negative"):
                vals = per_seed(s, lambda f, lab=lab: float((f[label_col] == lab).mean()),
                                label_col) if len(s) else []
                if vals:
                    row[f"{lab}_{g}{SEED_MIN}"], row[f"{lab}_{g}{SEED_MAX}"] = min(vals), max(vals)
        rows.append(row)
    return pd.DataFrame(rows)


#: suffixes of :func:`bold_regard_table`'s columns holding the lowest / highest seed's share
SEED_MIN, SEED_MAX = "_seed_min", "_seed_max"


def bold_vs_paper(ours: pd.DataFrame, source_names: dict[str, str]) -> pd.DataFrame:
    """Our BOLD Table 5 rows (source renamed with ``source_names``) under the paper's rows, one
    column per cell (then n per group and, where the labels are a seeds' vote, each cell's lowest
    and highest seed's share); the ``origin`` column says which is which."""
    pap = paper.BOLD_TABLE5.copy()
    pap.insert(0, "origin", "paper")
    run = ours.copy()
    run["source"] = run["source"].map(lambda s: source_names.get(s, s))
    run.insert(0, "origin", "this run")
    cols = ["origin", "source", *[c for c in paper.BOLD_TABLE5.columns if c != "source"]]
    ncols = [c for c in run.columns if c.startswith("n_")]
    scols = [c for c in run.columns if c.endswith((SEED_MIN, SEED_MAX))]
    out = pd.concat([pap, run], ignore_index=True)[cols + ncols + scols]
    for c in ncols:
        out[c] = out[c].astype("Int64")
    return out


def bold_chi2(texts: pd.DataFrame, label_col: str = "regard") -> dict:
    """BOLD §6.3: chi-square test that every source has the same share of positive regard
    (gender + race groups of Table 5 pooled), returning statistic, p, dof and the shares."""
    groups = {**paper.BOLD_GROUPS["gender"], **paper.BOLD_GROUPS["race"]}
    df = texts[texts["group"].isin(groups)]
    g = df.groupby("model", sort=False)
    counts = g[label_col].agg(lambda s: int((s == "positive").sum()))
    totals = g.size()
    if len(counts) < 2:
        return {"statistic": np.nan, "p": np.nan, "dof": 0, "sources": list(counts.index)}
    t = chi2_proportions(counts, totals)
    return {"statistic": t.statistic, "p": t.pvalue, "p_text": format_p(t.pvalue, 4), "dof": t.dof,
            "sources": list(counts.index), "shares": (counts / totals).round(3).to_dict()}


#: the person placeholder of BOLD's anonymised texts (:func:`nlgbias.bold.prompts.anonymize`)
ANON_PERSON = "Person"


def placeholder_text(text: str, raw: str, placeholder: str) -> str:
    """BOLD's anonymised ``text`` (§3.3: person names -> :data:`ANON_PERSON`) with the
    anonymiser's placeholder replaced by ``placeholder`` (e.g. ``XYZ``, the regard classifier's
    training placeholder); a "Person" that is in the original ``raw`` text itself ("Person of
    the Year") is kept (the two texts' words aligned).

    >>> placeholder_text("Person was named Person of the Year.",
    ...                  "Maggie Q was named Person of the Year.", "XYZ")
    'XYZ was named Person of the Year.'
    """
    word = re.compile(rf"\b{ANON_PERSON}\b")
    if placeholder == ANON_PERSON:
        return text
    if not word.search(raw):
        return word.sub(placeholder, text)
    a, b = re.split(r"(\W+)", text), re.split(r"(\W+)", raw)
    out: list[str] = []
    for op, i1, i2, _j1, _j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        out += a[i1:i2] if op == "equal" else [placeholder if t == ANON_PERSON else t
                                               for t in a[i1:i2]]
    return "".join(out)


def bold_mask(texts: pd.Series, names: pd.Series) -> list[str]:
    """BOLD texts with the person's name (and each of its words of 3+ letters) replaced by XYZ."""
    from nlgbias.datasets.regard import mask_demographic

    out = []
    for t, name in zip(texts, names, strict=True):
        name = str(name).replace("_", " ")
        terms = [name] + [w for w in name.split() if len(w.strip(".,")) >= 3]
        out.append(mask_demographic(str(t), terms))
    return out


def disagreements(both: pd.DataFrame, k: int = 2) -> pd.DataFrame:
    """Sheng Table 3-style examples from the annotations: ``k`` texts for each (sentiment, regard)
    pair that differ in sign (positive vs negative), plus agreeing ones; shortest texts first."""
    both = both.assign(length=both["text"].str.len()).sort_values("length")
    rows = []
    for s, r in [(1, -1), (-1, 1), (1, 1), (-1, -1)]:
        sub = both[(both["sentiment"] == s) & (both["regard"] == r)].head(k)
        for t in sub["text"]:
            rows.append({"text": t, "sentiment": LABEL_NAMES[s], "regard": LABEL_NAMES[r],
                         "n_with_this_pair": int(((both["sentiment"] == s) & (both["regard"] == r)).sum())})
    return pd.DataFrame(rows)


def seed_summary(runs: pd.DataFrame, n_texts: dict[str, int], settings_tried: int = 1) -> pd.DataFrame:
    """Per model, the mean accuracy over seeds on dev and test with a 95 % interval that holds
    both the text sampling and the seeds: the Wilson (Clopper-Pearson where fewer than 5
    texts are right or wrong) interval of the mean accuracy over the
    split's ``n_texts`` texts, widened to contain every seed's accuracy (a rerun on another
    CPU trains other heads: their spread must sit inside the interval). ``runs``: columns
    ``model, seed, dev, test``. ``settings_tried``: how many settings were tried on dev (the dev
    accuracy is the selected setting's, so optimistic).

    >>> r = pd.DataFrame({"model": ["m"] * 2, "seed": [0, 1], "dev": [0.5, 0.5], "test": [0.7, 0.9]})
    >>> s = seed_summary(r, {"dev": 10, "test": 10}).iloc[0]
    >>> [round(float(s[c]), 3) for c in ("test_mean", "test_mean_lo", "test_mean_hi")]
    [0.8, 0.444, 0.975]
    """
    from nlgbias.stats import proportion_interval

    rows = []
    for model, g in runs.groupby("model", sort=False):
        rec = {"model": model, "seeds": len(g)}
        for split in ("dev", "test"):
            acc = g[split].to_numpy(dtype=float)
            n = int(n_texts[split])
            m = float(acc.mean())
            lo, hi = proportion_interval(int(round(m * n)), n)
            rec.update({f"{split}_mean": m, f"{split}_mean_lo": min(float(lo), float(acc.min())),
                        f"{split}_mean_hi": max(float(hi), float(acc.max())),
                        f"{split}_min": float(acc.min()), f"{split}_max": float(acc.max()),
                        f"n_{split}": n})
        rec["settings tried on dev"] = settings_tried
        rows.append(rec)
    return pd.DataFrame(rows)


def spearman_interval(df: pd.DataFrame, a: str, b: str, *, n_boot: int = 1000, seed: int = 0,
                      ) -> tuple[float, float, float, int]:
    """Spearman's rho of columns ``a`` and ``b`` with a seeded percentile-bootstrap 95 % interval
    over the texts (``nlgbias.stats.bootstrap_interval``). Returns (rho, lo, hi, n)."""
    sub = df.dropna(subset=[a, b])
    x, y = sub[a].to_numpy(dtype=float), sub[b].to_numpy(dtype=float)
    if len(sub) < 3:
        return float("nan"), float("nan"), float("nan"), len(sub)

    def rho(idx: np.ndarray) -> float:
        i = idx.astype(int)
        return float(sps.spearmanr(x[i], y[i]).statistic)

    lo, hi = bootstrap_interval(np.arange(len(sub)), rho, n_boot=n_boot, seed=seed)
    return rho(np.arange(len(sub))), lo, hi, len(sub)


def gap_difference(df: pd.DataFrame, label_col: str, source_a: str, source_b: str, *,
                   n_boot: int = 1000, seed: int = 0) -> dict:
    """Mean absolute gap in negative and positive shares between paired demographics
    (:func:`bias_size`) of ``source_a`` minus ``source_b``, with a seeded bootstrap 95 %
    interval (texts resampled within each source x context x demographic cell,
    ``nlgbias.stats.bootstrap_means``). Returns estimate, lo, hi and n per source."""
    from nlgbias.stats import bootstrap_means, percentile_interval

    labs = ("negative", "positive")
    out_gaps, point, ns = {}, {}, {}
    for k_src, src in enumerate((source_a, source_b)):
        sub = df[df["source"] == src]
        ns[src] = len(sub)
        shares, shares_point = {}, {}
        for k, ((ctx, demo), g) in enumerate(sub.groupby(["context", "demographic"], sort=True)):
            onehot = np.column_stack([(g[label_col] == lab).to_numpy(dtype=float) for lab in labs])
            shares[(ctx, demo)] = bootstrap_means(onehot, n_boot=n_boot, seed=seed + 1000 * k_src + k)
            shares_point[(ctx, demo)] = onehot.mean(axis=0)
        gaps, gp = [], []
        for ctx in ("respect", "occupation"):
            for a, b in PAIRS:
                if (ctx, a) in shares and (ctx, b) in shares:
                    gaps.append(np.abs(shares[(ctx, a)] - shares[(ctx, b)]))
                    gp.append(np.abs(shares_point[(ctx, a)] - shares_point[(ctx, b)]))
        out_gaps[src] = np.mean(np.concatenate(gaps, axis=1), axis=1)
        point[src] = float(np.mean(np.concatenate(gp)))
    lo, hi = percentile_interval(out_gaps[source_a] - out_gaps[source_b])
    return {"estimate": point[source_a] - point[source_b], "lo": float(lo), "hi": float(hi),
            "gap_a": point[source_a], "gap_b": point[source_b], "n_a": ns[source_a], "n_b": ns[source_b]}


def figure1_summary(runs: pd.DataFrame, n_texts: dict[str, int], settings_tried: int = 1) -> pd.DataFrame:
    """Figure 1's table: :func:`accuracy_summary` beside :func:`seed_summary`'s intervals (its
    means are the same numbers, kept once)."""
    seeds = seed_summary(runs, n_texts, settings_tried=settings_tried).drop(columns=["dev_mean", "test_mean"])
    return accuracy_summary(runs).merge(seeds, on="model")


def table5(inputs: pd.DataFrame, ours: str) -> pd.DataFrame:
    """Sheng Table 5 beside the paper (:func:`table5_vs_paper`): the annotations against each
    other and against VADER on every doubly annotated text, and our classifier against the
    regard annotations on the held-out test texts only (:func:`held_out`)."""
    t5 = spearman_table(inputs, {
        "sentiment ann. vs regard ann.": ("sentiment", "regard"),
        "VADER pred. vs sentiment ann.": ("vader", "sentiment"),
        "VADER pred. vs regard ann.": ("vader", "regard")})
    t5_clf = spearman_table(held_out(inputs), {f"{ours} pred. vs regard ann. (test texts only)":
                                               ("classifier", "regard")})
    return table5_vs_paper(pd.concat([t5, t5_clf], ignore_index=True))


def held_out(inputs: pd.DataFrame) -> pd.DataFrame:
    """The doubly annotated texts of the regard test split (dev selected the classifier's
    setting, train fitted it)."""
    return inputs[inputs["regard_split"] == "test"]


METRICS = ("regard", "sentiment")


def label_distributions(scored: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """:func:`label_distribution` of the regard (its intervals holding every classifier seed's
    share) and the VADER sentiment labels."""
    return {m: label_distribution(scored, m, seed_cols=seed_columns(scored) if m == "regard" else ())
            for m in METRICS}


def by_metric(dists: dict[str, pd.DataFrame], fn=None) -> pd.DataFrame:
    """``fn(dist)`` of each metric's distribution (the distribution itself by default), stacked
    with a ``metric`` column."""
    return pd.concat([(fn(d) if fn else d).assign(metric=m) for m, d in dists.items()], ignore_index=True)


def findings_table(dists: dict[str, pd.DataFrame], sources: Sequence[str],
                   samples: pd.DataFrame | None = None) -> pd.DataFrame:
    """:func:`check_findings` for regard, then sentiment."""
    return pd.concat([check_findings(dists[m], m, sources, samples) for m in METRICS],
                     ignore_index=True)


def bold_source_names(models: Sequence[str], wiki: str) -> dict[str, str]:
    """How BOLD Table 5 names each source: WIKI as it is, a model as ``<model> (offline)``
    (``(offline, chat-tuned)`` for a chat-tuned model given BOLD's raw prompts)."""
    from nlgbias.bold.claims import chat_tuned

    chat = chat_tuned([m for m in models if m != wiki])
    return {m: (m if m == wiki else f"{m} (offline, chat-tuned)" if m in chat else f"{m} (offline)")
            for m in models}


def bold_table(bold_t5: pd.DataFrame, names: dict[str, str], ours: str) -> pd.DataFrame:
    """:func:`bold_vs_paper` with a ``classifier`` column: the paper's BERT or ``ours``."""
    out = bold_vs_paper(bold_t5, names)
    out.insert(2, "classifier", np.where(out["origin"] == "paper", "BERT (Sheng et al.)", ours))
    return out


# --------------------------------------------------------------------------- seeds and contrasts
SEED_PREFIX = "regard_seed"


def seed_columns(frame: pd.DataFrame) -> list[str]:
    """The per-seed regard label columns (``regard_seed<k>``) of a scored frame."""
    return [c for c in frame.columns if str(c).startswith(SEED_PREFIX)]


def per_seed(frame: pd.DataFrame, fn, label_col: str = "regard") -> list[float]:
    """``fn(frame)`` with ``label_col`` replaced by each seed's own labels, one value per seed
    (empty where the frame holds no per-seed labels)."""
    return [float(fn(frame.assign(**{label_col: frame[c]}))) for c in seed_columns(frame)]


def widen(lo: float, hi: float, values: Sequence[float]) -> tuple[float, float]:
    """The interval ``[lo, hi]`` widened to hold every value (each seed's estimate)."""
    vals = [float(v) for v in values if np.isfinite(v)]
    return (min([float(lo), *vals]), max([float(hi), *vals]))


def boot_p(dist: np.ndarray) -> float:
    """Two-sided bootstrap p-value of "no difference": twice the smaller tail of the bootstrap
    distribution at 0, at least one replicate's weight.

    >>> boot_p(np.array([0.1, 0.2, 0.3, -0.1]))
    0.5
    """
    d = np.asarray(dist, dtype=float)
    d = d[np.isfinite(d)]
    tail = min(float((d <= 0).mean()), float((d >= 0).mean()))
    return float(min(1.0, max(2 * tail, 1 / len(d))))


def _cells(df: pd.DataFrame, source: str, cols: Sequence[tuple[str, str]], contexts: Sequence[str],
           n_boot: int, seed: int) -> tuple[dict, dict]:
    """Per (context, demographic) cell of ``source``: the share of texts whose ``col`` is
    ``label`` for each (col, label) in ``cols`` (point, and the bootstrap distribution with the
    cell's texts resampled, the same rows for every column)."""
    sub = df[(df["source"] == source) & df["context"].isin(contexts)]
    point, boot = {}, {}
    for k, ((ctx, demo), g) in enumerate(sub.groupby(["context", "demographic"], sort=True)):
        onehot = np.column_stack([(g[c] == lab).to_numpy(dtype=float) for c, lab in cols])
        point[(ctx, demo)] = onehot.mean(axis=0)
        if n_boot:
            boot[(ctx, demo)] = bootstrap_means(onehot, n_boot=n_boot, seed=seed + k)
    return point, boot


def _mean_abs_gaps(shares: dict, contexts: Sequence[str]) -> np.ndarray:
    gaps = [np.abs(shares[(c, a)] - shares[(c, b)]) for c in contexts for a, b in PAIRS
            if (c, a) in shares and (c, b) in shares]
    return np.mean(gaps, axis=0)


def metric_gap_contrast(df: pd.DataFrame, source: str, *, label: str = "negative",
                        contexts: Sequence[str] = ("respect", "occupation"), a: str = "regard",
                        b: str = "sentiment", n_boot: int = 1000, seed: int = 0) -> dict:
    """Sheng §5: the mean absolute gap in ``label`` shares between paired demographics
    (3 pairs x ``contexts``) measured with ``a`` (regard) minus measured with ``b`` (VADER) on
    the same texts of ``source``, with a seeded bootstrap 95 % interval and p (texts resampled
    within each context x demographic cell, both measures on the same draws).
    Returns estimate, lo, hi, p, gap_a, gap_b, n."""
    point, boot = _cells(df, source, [(a, label), (b, label)], contexts, n_boot, seed)
    if not point:
        return {"estimate": np.nan, "lo": np.nan, "hi": np.nan, "p": np.nan, "gap_a": np.nan,
                "gap_b": np.nan, "n": 0}
    gp = _mean_abs_gaps(point, contexts)
    out = {"estimate": float(gp[0] - gp[1]), "gap_a": float(gp[0]), "gap_b": float(gp[1]),
           "n": int(((df["source"] == source) & df["context"].isin(contexts)).sum())}
    if n_boot:
        gb = _mean_abs_gaps(boot, contexts)
        d = gb[:, 0] - gb[:, 1]
        lo, hi = percentile_interval(d)
        out.update(lo=float(lo), hi=float(hi), p=boot_p(d))
    return out


def label_share_contrast(df: pd.DataFrame, source: str, context: str, *, label: str = "neutral",
                         a: str = "regard", b: str = "sentiment", n_boot: int = 1000,
                         seed: int = 0) -> dict:
    """The share of ``source``'s ``context`` texts labelled ``label`` by ``a`` minus by ``b``
    (the same texts: a paired difference), with a seeded bootstrap 95 % interval and p over
    the texts. Returns estimate, lo, hi, p, share_a, share_b, n."""
    sub = df[(df["source"] == source) & (df["context"] == context)]
    diff = (sub[a] == label).to_numpy(dtype=float) - (sub[b] == label).to_numpy(dtype=float)
    out = {"estimate": float(diff.mean()) if len(diff) else np.nan,
           "share_a": float((sub[a] == label).mean()), "share_b": float((sub[b] == label).mean()),
           "n": len(sub)}
    if n_boot and len(diff):
        d = bootstrap_means(diff, n_boot=n_boot, seed=seed)
        lo, hi = percentile_interval(d)
        out.update(lo=float(lo), hi=float(hi), p=boot_p(d))
    return out


def share_difference(df: pd.DataFrame, source: str, context: str, worse: str, than: str, *,
                     label: str = "negative", col: str = "regard") -> float:
    """``label`` share of ``worse`` minus that of ``than`` among ``source``'s ``context`` texts."""
    sub = df[(df["source"] == source) & (df["context"] == context)]
    s = sub.groupby("demographic")[col].agg(lambda v: float((v == label).mean()))
    return float(s.get(worse, np.nan) - s.get(than, np.nan))


def mean_abs_gap(df: pd.DataFrame, source: str, col: str = "regard") -> float:
    """:func:`bias_size`'s mean absolute gap (negative and positive shares) of one source."""
    point, _ = _cells(df, source, [(col, "negative"), (col, "positive")],
                      ("respect", "occupation"), 0, 0)
    return float(np.mean(_mean_abs_gaps(point, ("respect", "occupation")))) if point else np.nan

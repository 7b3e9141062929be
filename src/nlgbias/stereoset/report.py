"""Tables and the figure of notebook 05 (StereoSet §4-8, Tables 1-8), built from official results.

``results`` arguments map a split ("dev", "test") to ``{display name: results structure of
:func:`nlgbias.stereoset.evaluation.evaluate`}``. ``stands_in`` maps a display name to the
paper model it is compared with (the offline causal LMs stand in for GPT2), ``methods`` a
display name to ``{task: how this run scored it}``. Every table carries this run's scoring
method and the paper's, and, where the paper reports one, the **method-matched** reference:
GPT2 scored by likelihood (intrasentence: Tables 7/8; intersentence: only its lms, 61.5,
footnote 3). Paper numbers come from :mod:`nlgbias.stereoset.paper`.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from nlgbias.stats import proportion_interval
from nlgbias.stereoset import paper as PP
from nlgbias.stereoset.evaluation import BASELINES, results_frame

SPLITS = ("dev", "test")
_TABLE4 = {"dev": PP.TABLE4_DEV, "test": PP.TABLE4_TEST}
_DOMAIN_TABLE = {"dev": PP.TABLE7_DEV, "test": PP.TABLE8_TEST}
_DOMAIN_TABLE_NAME = {"dev": "Table 7", "test": "Table 8"}
LIKELIHOOD = "likelihood"


def _check_split(split: str) -> None:
    if split not in SPLITS:
        raise ValueError(f"unknown StereoSet split {split!r}; choose from {', '.join(SPLITS)}")


def long_results(results: Mapping[str, Mapping]) -> pd.DataFrame:
    """All (model, task, domain) rows of several results structures (one split)."""
    return pd.concat([results_frame(r, model=m) for m, r in results.items()], ignore_index=True)


def _ref(name: str, stands_in: Mapping[str, str]) -> str:
    return name if name in BASELINES else stands_in.get(name, "")


def _method(name: str, task: str, methods: Mapping[str, Mapping[str, str]]) -> str:
    m = methods.get(name, {})
    if task == "overall":
        return "; ".join(f"{t[:5]}: {m[t]}" for t in ("intrasentence", "intersentence") if t in m)
    return m.get(task, "")


def _matched(name: str, task: str, domain: str, split: str, stands_in, methods) -> tuple:
    """(paper lms scored like this run, its source) for a model scored by likelihood."""
    ref = _ref(name, stands_in)
    if not ref.startswith("GPT2") or not _method(name, task, methods).startswith(LIKELIHOOD):
        return None, ""
    if task == "intrasentence":
        t = _DOMAIN_TABLE[split].set_index(["model", "task", "domain"])
        key = (ref, task, domain)
        if key in t.index:
            return float(t.loc[key, "lms"]), f"{_DOMAIN_TABLE_NAME[split]} (likelihood)"
    if task == "intersentence" and domain == "overall" and ref == "GPT2":
        return PP.FOOTNOTE3_GPT2_INTER_LIKELIHOOD_LMS, "footnote 3 (likelihood; split not stated)"
    return None, ""


def table4(results: Mapping[str, Mapping[str, Mapping]], stands_in: Mapping[str, str],
           methods: Mapping[str, Mapping[str, str]]) -> pd.DataFrame:
    """Table 4 (dev and test): combined lms / ss / icat of each baseline and model beside the
    paper's row for the same split (the same baseline, or the paper model a stand-in is
    compared with), with this run's and the paper's scoring method."""
    rows = []
    for split, res in results.items():
        _check_split(split)
        paper = _TABLE4[split].set_index("model")
        for name, r in res.items():
            o = r["overall"]
            ref = _ref(name, stands_in)
            p = paper.loc[ref] if ref in paper.index else None
            rows.append({"split": split, "model": name,
                         "scoring (this run)": _method(name, "overall", methods),
                         "CATs": int(o["Count"]), "lms": o["LM Score"], "ss": o["SS Score"],
                         "icat": o["ICAT Score"], "paper model": ref,
                         "paper scoring": PP.paper_scoring(ref, "overall") if ref else "",
                         "paper lms": None if p is None else p["lms"],
                         "paper ss": None if p is None else p["ss"],
                         "paper icat": None if p is None else p["icat"]})
    return pd.DataFrame(rows)


_CI = ["lms_lo", "lms_hi", "ss_lo", "ss_hi", "icat_lo", "icat_hi"]


def with_intervals(table: pd.DataFrame, ci: pd.DataFrame) -> pd.DataFrame:
    """``table`` (:func:`table4`: combined scores; :func:`task_table`: per task) with the
    bootstrap 95% intervals of :func:`~nlgbias.stereoset.evaluation.interval_frame` (columns
    ``lms_lo`` ... ``icat_hi``) placed after ``icat``."""
    t = table.copy()
    task = t["task"] if "task" in t.columns else pd.Series("overall", index=t.index)
    key = pd.MultiIndex.from_arrays([t["split"], t["model"], task])
    c = ci.set_index(["split", "model", "task"])[_CI].reindex(key)
    pos = list(t.columns).index("icat") + 1
    for j, col in enumerate(_CI):
        t.insert(pos + j, col, c[col].to_numpy())
    return t


def paper_table4_rows() -> pd.DataFrame:
    """The paper's Table 4 (dev and test rows; its numbers, for reference)."""
    return pd.concat([t.assign(split=s) for s, t in _TABLE4.items()], ignore_index=True)[
        ["split", "model", "lms", "ss", "icat"]].rename(
        columns={"lms": "paper lms", "ss": "paper ss", "icat": "paper icat"})


def domain_table(results: Mapping[str, Mapping], split: str, stands_in: Mapping[str, str],
                 methods: Mapping[str, Mapping[str, str]],
                 also: tuple[str, ...] = ("BERT-base",)) -> pd.DataFrame:
    """Table 7 (dev) / Table 8 (test): per task × domain (and task overall) lms / ss / icat of
    each model and baseline, with the paper's numbers of the corresponding paper model
    (``paper ...``), the scoring methods, the method-matched paper lms (``paper lms, same
    scoring``: GPT2 by likelihood) and, on every row, the paper's numbers of the models in
    ``also`` (BERT-base: a masked LM with its pre-trained NSP head)."""
    _check_split(split)
    run = long_results(results).query("task != 'overall'")
    paper = _DOMAIN_TABLE[split].set_index(["model", "task", "domain"])
    out = []
    for row in run.itertuples(index=False):
        ref = _ref(row.model, stands_in)
        key = (ref, row.task, row.domain)
        p = paper.loc[key] if ref and key in paper.index else None
        m_lms, m_src = _matched(row.model, row.task, row.domain, split, stands_in, methods)
        rec = {"split": split, "model": row.model, "task": row.task, "domain": row.domain,
               "scoring (this run)": _method(row.model, row.task, methods),
               "count": int(row.count), "lms": row.lms, "ss": row.ss, "icat": row.icat,
               "paper model": ref, "paper scoring": PP.paper_scoring(ref, row.task) if ref else "",
               "paper lms": None if p is None else p["lms"],
               "paper ss": None if p is None else p["ss"],
               "paper icat": None if p is None else p["icat"],
               "paper lms, same scoring": m_lms, "same-scoring source": m_src}
        for other in also:
            q = paper.loc[(other, row.task, row.domain)]
            rec.update({f"{other} lms": q["lms"], f"{other} ss": q["ss"],
                        f"{other} icat": q["icat"]})
        out.append(rec)
    return pd.DataFrame(out)


def task_table(domains: pd.DataFrame) -> pd.DataFrame:
    """Table 6 (intrasentence vs intersentence): the ``overall`` rows of :func:`domain_table`.
    On the test split the paper columns hold Table 8's overall rows (Table 6 prints the same
    numbers to one decimal: :func:`paper_table6_check`)."""
    return domains[domains["domain"] == "overall"].drop(columns=["domain"]).reset_index(drop=True)


def paper_table6_check() -> pd.DataFrame:
    """The paper's Table 6 (test) beside its Table 8 overall rows: they agree to rounding
    (a check of the transcription, and of the paper)."""
    t8 = PP.TABLE8_TEST.query("domain == 'overall'").drop(columns="domain")
    m = PP.TABLE6_TEST.merge(t8, on=["model", "task"], suffixes=(" (Table 6)", " (Table 8)"))
    m["max |diff|"] = np.max(np.abs(np.stack(
        [m[f"{v} (Table 6)"] - m[f"{v} (Table 8)"] for v in ("lms", "ss", "icat")])), axis=0)
    return m


def table1(stats: pd.DataFrame) -> pd.DataFrame:
    """Table 1: this run's :func:`~nlgbias.stereoset.analysis.dataset_statistics` (dev + test)
    beside the paper's; ``paper rows sum`` shows the paper's domain rows summed (they do not
    add up to its totals: its per-domain counts for religion and race differ from the data)."""
    paper = PP.TABLE1.set_index(["task", "domain"])
    out = stats.set_index(["task", "domain"]).join(paper.add_suffix(" (paper)"))
    sums = PP.TABLE1[PP.TABLE1["domain"] != "total"].groupby("task")["CATs"].sum()
    out["paper domain rows sum"] = [sums.get(t) if d == "total" and t in sums.index else None
                                    for t, d in out.index]
    return out.reset_index()


def target_extremes(per_target: Mapping[str, pd.DataFrame], min_cats: int = 20) -> pd.DataFrame:
    """Table 5 style, ranked by a stated statistic with an interval: per model and domain,
    among targets with at least ``min_cats`` CATs (both tasks pooled), the target's ss (the %
    of its CATs where the stereotype wins) with a Wilson 95% interval, and

    - **most stereotyped**: among targets with ss > 50, the highest lower bound of that interval
      (the strongest evidence of ss > 50),
    - **most anti-stereotyped**: among targets with ss < 50, the lowest upper bound,
    - **least stereotyped**: among the other targets, the smallest |ss - 50| (ties: more CATs,
      then the narrower interval), so no target is both the most and the least;

    ``interval excludes 50`` says whether the extreme is distinguishable from no preference at
    its n; ``targets ranked``: how many targets met ``min_cats``."""
    rows = []
    for model, t in per_target.items():
        t = t[t["total"] >= min_cats].copy()
        if not len(t):
            continue
        wins = np.rint(t["ss"] * t["total"] / 100).astype(int)
        lo, hi = proportion_interval(wins.to_numpy(), t["total"].to_numpy())
        t["ss_lo"], t["ss_hi"] = 100 * np.asarray(lo), 100 * np.asarray(hi)
        t["_dist"] = (t["ss"] - 50).abs()
        for domain, g in t.groupby("bias_type", sort=True):
            most = g[g["ss"] > 50].sort_values(["ss_lo", "total"], ascending=[False, False])
            anti = g[g["ss"] < 50].sort_values(["ss_hi", "total"], ascending=[True, False])
            taken = set(most["target"][:1]) | set(anti["target"][:1])
            rest = g[~g["target"].isin(taken)]
            least = rest.assign(_w=rest["ss_hi"] - rest["ss_lo"]).sort_values(
                ["_dist", "total", "_w"], ascending=[True, False, True])
            for kind, order in (("most stereotyped", most), ("most anti-stereotyped", anti),
                                ("least stereotyped", least)):
                if not len(order):  # e.g. no target with ss > 50: nothing to name
                    rows.append({"model": model, "domain": domain, "which": kind, "target": "(none)",
                                 "CATs": 0, "lms": np.nan, "ss": np.nan, "ss_lo": np.nan,
                                 "ss_hi": np.nan, "icat": np.nan, "interval excludes 50": False,
                                 "targets ranked": len(g)})
                    continue
                r = order.iloc[0]
                rows.append({"model": model, "domain": domain, "which": kind, "target": r["target"],
                             "CATs": int(r["total"]), "lms": r["lms"], "ss": r["ss"],
                             "ss_lo": r["ss_lo"], "ss_hi": r["ss_hi"], "icat": r["icat"],
                             "interval excludes 50": bool(r["ss_lo"] > 50 or r["ss_hi"] < 50),
                             "targets ranked": len(g)})
    return pd.DataFrame(rows)


def _paper_points(split: str) -> pd.DataFrame:
    per_task = _DOMAIN_TABLE[split].query("domain == 'overall'")[["model", "task", "lms", "ss"]]
    overall = _TABLE4[split].dropna().assign(task="overall")[["model", "task", "lms", "ss"]]
    p = pd.concat([per_task, overall], ignore_index=True)
    return p[~p["model"].isin(["IdealLM", "RandomLM", "StereotypedLM"])]


_PAPER_MARKERS = dict(zip(
    ["GPT2", "GPT2-medium", "GPT2-large", "BERT-base", "BERT-large", "RoBERTa-base",
     "RoBERTa-large", "XLNET-base", "XLNET-large", "Ensemble", "SentimentLM"],
    ["^", "v", "<", "s", "D", "P", "X", "h", "H", "*", "p"]))


def plot_lms_vs_ss(results: Mapping[str, Mapping[str, Mapping]], stands_in: Mapping[str, str],
                   ci: pd.DataFrame | None = None) -> plt.Figure:
    """lms against ss per split (rows) and task (columns). The paper's models: hollow dark
    markers, one shape per model (named in the legend), drawn on top; this run: filled,
    translucent circles (models) and squares (baselines; STEREOTYPEDLM, at ss = 100 by
    construction, is left out to keep the scale readable). Dashed in the intersentence panels:
    the paper's GPT2 scored by likelihood as here (footnote 3, lms 61.5; its ss is not
    reported). Dotted: the ideal ss = 50. ``ci`` (:func:`~nlgbias.stereoset.evaluation.
    interval_frame` rows with a ``split`` column): 95% bootstrap error bars on this run's points."""
    tasks = ["intrasentence", "intersentence", "overall"]
    splits = list(results)
    names = [m for m in dict.fromkeys(m for res in results.values() for m in res)
             if m != "StereotypedLM"]
    pal = dict(zip(names, sns.color_palette("colorblind", len(names))))
    fig, axes = plt.subplots(len(splits), 3, figsize=(16, 5.0 * len(splits)), squeeze=False,
                             sharex=True, sharey=True)
    for i, split in enumerate(splits):
        run = long_results(results[split]).query("domain == 'overall'")
        paper = _paper_points(split)
        for ax, task in zip(axes[i], tasks):
            r = run[(run["task"] == task) & run["model"].isin(names)]
            for m, x, y in zip(r["model"], r["ss"], r["lms"]):
                label = "this run: " + m + (f" (stands in for {stands_in[m]})"
                                             if stands_in.get(m) else "")
                ax.scatter([x], [y], color=pal[m], s=110, alpha=0.6,
                           marker="s" if m in BASELINES else "o", label=label, zorder=2)
                if ci is not None and m != "IdealLM":  # IdealLM is fixed by construction
                    c = ci[(ci["split"] == split) & (ci["model"] == m) & (ci["task"] == task)]
                    if len(c):
                        c = c.iloc[0]
                        ax.errorbar([x], [y], xerr=[[x - c["ss_lo"]], [c["ss_hi"] - x]],
                                    yerr=[[y - c["lms_lo"]], [c["lms_hi"] - y]], fmt="none",
                                    ecolor=pal[m], alpha=0.6, lw=1, zorder=1)
            p = paper[paper["task"] == task]
            for m, x, y in zip(p["model"], p["ss"], p["lms"]):
                gpt2 = m == "GPT2"  # the model the stand-ins are compared with: drawn large, on top
                ax.scatter([x], [y], facecolors="none", edgecolors="crimson" if gpt2 else "0.15",
                           s=150 if gpt2 else 55, linewidths=2.0 if gpt2 else 1.1,
                           marker=_PAPER_MARKERS.get(m, "o"), label=f"paper: {m}", zorder=6 if gpt2 else 3)
            if task == "intersentence":
                ax.axhline(PP.FOOTNOTE3_GPT2_INTER_LIKELIHOOD_LMS, ls="--", color="0.4", lw=1,
                           label="paper: GPT2 scored by likelihood (fn. 3; lms "
                           f"{PP.FOOTNOTE3_GPT2_INTER_LIKELIHOOD_LMS}, ss not reported)")
            ax.axvline(50, ls=":", color="0.3")
            title = f"{split}: {task}"
            if ci is not None and "n_cats" in ci:
                c = ci[(ci["split"] == split) & (ci["task"] == task) & ci["model"].isin(names)]
                ns = sorted({int(v) for v in c["n_cats"]})
                title += f"\nn = {' / '.join(f'{v:,}' for v in ns)} CATs"
                if len(ns) > 1:
                    title += " (models / baselines)"
            ax.set_title(title)
            if i == len(splits) - 1:
                ax.set_xlabel("stereotype score ss (50 = unbiased)")
        axes[i][0].set_ylabel("language modelling score lms")
    handles, labels = [], []
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False,
               fontsize=9)
    fig.suptitle("StereoSet: lms vs ss (filled: this run, with bootstrap 95% intervals; hollow: "
                 "the paper's models, dev and test as in its Tables 4, 7, 8)")
    fig.tight_layout()
    return fig


def crows_table(metrics: Mapping[str, pd.DataFrame], scoring: Mapping[str, str]) -> pd.DataFrame:
    """CrowS-Pairs metric per model and bias type (:func:`~nlgbias.stereoset.crows_pairs.
    crows_metric`), with each model's scoring method named on every row."""
    parts = [m.assign(model=name, scoring=scoring[name]) for name, m in metrics.items()]
    if not parts:
        return pd.DataFrame(columns=["model", "scoring", "bias_type", "pairs", "metric"])
    out = pd.concat(parts, ignore_index=True)
    front = ["model", "scoring", "bias_type", "pairs", "metric"]
    return out[front + [c for c in out.columns if c not in front]]

"""Tables and the figure of notebook 05 (StereoSet §8, Tables 4-7), built from official results.

``results`` arguments map a display name to the structure of
:func:`nlgbias.stereoset.evaluation.evaluate`. Paper numbers come from
:mod:`nlgbias.stereoset.paper` and are labelled as such.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from nlgbias.stereoset.evaluation import BASELINES, results_frame
from nlgbias.stereoset.paper import TABLE4_DEV, TABLE7_DEV

#: Footnote 3 (§7.4): GPT2's intersentence lms when scored by likelihood instead of an NSP head.
GPT2_INTER_LIKELIHOOD_LMS = 61.5


_LABELLED = ("GPT2", "GPT2-large", "BERT-base", "RoBERTa-base", "SentimentLM")


def long_results(results: Mapping[str, Mapping]) -> pd.DataFrame:
    """All (model, task, domain) rows of several results structures."""
    return pd.concat([results_frame(r, model=m) for m, r in results.items()], ignore_index=True)


def table4(results: Mapping[str, Mapping], stands_in: Mapping[str, str]) -> pd.DataFrame:
    """Table 4 (dev): combined lms / ss / icat of this run's baselines and models, each beside
    the paper's row it corresponds to (baselines: the same baseline; an offline model: the
    paper model it stands in for, ``stands_in``)."""
    rows = []
    paper = TABLE4_DEV.set_index("model")
    for name, r in results.items():
        o = r["overall"]
        ref = name if name in BASELINES else stands_in.get(name)
        p = paper.loc[ref] if ref in paper.index else None
        rows.append({"model": name, "CATs": int(o["Count"]),
                     "lms": o["LM Score"], "ss": o["SS Score"], "icat": o["ICAT Score"],
                     "paper model": ref or "",
                     "paper lms": None if p is None else p["lms"],
                     "paper ss": None if p is None else p["ss"],
                     "paper icat": None if p is None else p["icat"]})
    return pd.DataFrame(rows)


def paper_table4_rows() -> pd.DataFrame:
    """The paper's Table 4 dev rows (its numbers, for reference)."""
    return TABLE4_DEV.rename(columns={"lms": "paper lms", "ss": "paper ss", "icat": "paper icat"})


def domain_table(results: Mapping[str, Mapping], stands_in: Mapping[str, str],
                 also: tuple[str, ...] = ("BERT-base",)) -> pd.DataFrame:
    """Tables 6/7 (dev): per split × domain (and split overall) lms / ss / icat of each model,
    with the paper's Table 7 numbers of the corresponding paper model ("paper ..." columns;
    SentimentLM for SentimentLM, the stood-in model for an offline LM) and, for every row, of
    the paper models in ``also`` (BERT-base: the paper's masked LM with an NSP head)."""
    run = long_results(results).query("task != 'overall'")
    paper = TABLE7_DEV.set_index(["model", "task", "domain"])
    out = []
    for row in run.itertuples(index=False):
        ref = "SentimentLM" if row.model == "SentimentLM" else stands_in.get(row.model)
        key = (ref, row.task, row.domain)
        p = paper.loc[key] if ref and key in paper.index else None
        rec = {"model": row.model, "task": row.task, "domain": row.domain,
               "count": int(row.count), "lms": row.lms, "ss": row.ss, "icat": row.icat,
               "paper model": ref or "",
               "paper lms": None if p is None else p["lms"],
               "paper ss": None if p is None else p["ss"],
               "paper icat": None if p is None else p["icat"]}
        for other in also:
            q = paper.loc[(other, row.task, row.domain)]
            rec.update({f"{other} lms": q["lms"], f"{other} ss": q["ss"],
                        f"{other} icat": q["icat"]})
        out.append(rec)
    return pd.DataFrame(out)


def target_extremes(per_target: Mapping[str, pd.DataFrame], min_cats: int = 1) -> pd.DataFrame:
    """Table 5 style: per model and domain, the most stereotyped target (highest ss) and the
    least (highest icat), among targets with at least ``min_cats`` CATs (both splits pooled)."""
    rows = []
    for model, t in per_target.items():
        t = t[t["total"] >= min_cats]
        for domain, g in t.groupby("bias_type", sort=True):
            most = g.sort_values(["ss", "total"], ascending=[False, False]).iloc[0]
            least = g.sort_values(["icat", "total"], ascending=[False, False]).iloc[0]
            for kind, r in (("most stereotyped", most), ("least stereotyped", least)):
                rows.append({"model": model, "domain": domain, "which": kind,
                             "target": r["target"], "CATs": int(r["total"]),
                             "lms": r["lms"], "ss": r["ss"], "icat": r["icat"]})
    return pd.DataFrame(rows)


def plot_lms_vs_ss(results: Mapping[str, Mapping], stands_in: Mapping[str, str]) -> plt.Figure:
    """lms against ss per split and combined: this run (filled) and the paper's dev numbers
    (hollow grey; Table 7 per split, Table 4 combined). Dotted: the ideal ss = 50."""
    run = long_results(results).query("domain == 'overall'").copy()
    run["source"] = ["baseline" if m in BASELINES else "this run (model)" for m in run["model"]]
    paper = pd.concat([
        TABLE7_DEV.query("domain == 'overall'")[["model", "task", "lms", "ss"]],
        TABLE4_DEV.dropna().assign(task="overall")[["model", "task", "lms", "ss"]],
    ], ignore_index=True)
    paper = paper[~paper["model"].isin(["IdealLM", "RandomLM", "StereotypedLM"])]
    tasks = ["intrasentence", "intersentence", "overall"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8), sharex=True, sharey=True)
    pal = dict(zip(results, sns.color_palette("colorblind", len(results))))
    for ax, task in zip(axes, tasks):
        p = paper[paper["task"] == task]
        ax.scatter(p["ss"], p["lms"], facecolors="none", edgecolors="0.55", s=45,
                   label="paper (dev)")
        for m, x, y in zip(p["model"], p["ss"], p["lms"]):
            if m not in _LABELLED:
                continue
            ax.annotate(m, (x, y), fontsize=7, color="0.45", xytext=(3, 2),
                        textcoords="offset points")
        r = run[run["task"] == task]
        for m, x, y in zip(r["model"], r["ss"], r["lms"]):
            label = m + (f" (for {stands_in[m]})" if m in stands_in else "")
            ax.scatter([x], [y], color=pal[m], s=70, marker="o" if m not in BASELINES else "s",
                       label=label, edgecolor="black", linewidth=0.5, zorder=3)
        ax.axvline(50, ls=":", color="0.3")
        ax.set_title(task)
        ax.set_xlabel("stereotype score ss")
    axes[0].set_ylabel("language modelling score lms")
    handles, labels = axes[-1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    fig.suptitle("StereoSet dev: lms vs ss (filled: this run; hollow: the paper)")
    fig.tight_layout()
    return fig

"""Figures of Sheng et al. 2019: Figure 1 (classifier accuracy) and Figure 2 (regard and
sentiment label shares per demographic, respect and occupation contexts, with the exact n of
each bar group and 95 %
seeded bootstrap intervals)."""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from nlgbias.regard.analysis import SHORT

#: characters of a 10 pt title line per inch of figure width (DejaVu Sans averages about 5.5 pt
#: a character; 12 leaves room): Figure 2's title lines are wrapped to this
TITLE_CHARS_PER_INCH = 12
LABEL_COLORS = {"negative": "#d55e00", "neutral": "#999999", "positive": "#0072b2"}


def figure1(summary: pd.DataFrame, paper_bert_test: float, n_texts: dict[str, int] | None = None,
            selected: str | None = None,
            vote: tuple[float, float, float] | None = None,
            margin: float | None = None) -> plt.Figure:
    """Dev and test accuracy per model: the mean over runs (bars) with its 95 % interval (error
    bars from ``<split>_mean_lo`` to ``<split>_mean_hi``: the texts' sampling, widened to hold
    every seed) and each seed's accuracy (dots, where ``summary`` has ``<split>_per_seed``), and
    the paper's BERT test accuracy as a dashed line (Sheng Figure 1, footnote 9). ``n_texts``:
    texts per split, shown in the title. ``selected``: the model whose setting was chosen on
    dev: its dev bar is hatched and labelled optimistic (selection on dev biases it upwards).
    ``vote``: (accuracy, lo, hi) of the selected model's graded test accuracy (the seeds' soft
    vote, one classifier, with its 95% interval as context: the test texts are the paper's, so
    the calibration grades the vote and each seed against the margin, not the interval), drawn as a diamond with its whisker beside
    that model's test bar (the bar is the mean of the seeds' own accuracies). ``margin``: the
    calibration margin the test accuracy is graded with: the band ``paper_bert_test +/- margin``
    is shaded and labelled (the vote and every seed inside it agree)."""
    models = list(summary["model"])
    x = np.arange(len(models))
    w = 0.38
    fig, ax = plt.subplots(figsize=(12, 4.4))
    for k, (split, color) in enumerate((("dev", "#4c72b0"), ("test", "#dd8452"))):
        mean = summary[f"{split}_mean"].to_numpy(dtype=float)
        err = None
        if f"{split}_mean_lo" in summary:
            err = np.clip(np.vstack([mean - summary[f"{split}_mean_lo"].to_numpy(dtype=float),
                                     summary[f"{split}_mean_hi"].to_numpy(dtype=float) - mean]), 0, None)
        bars = ax.bar(x + (k - 0.5) * w, mean, w, yerr=err, capsize=3, color=color,
                      label=f"{split} (mean of the seeds, 95% interval)", error_kw={"lw": 1})
        if split == "dev" and selected in models:
            i = models.index(selected)
            bars[i].set_hatch("//")
            bars[i].set_edgecolor("white")
            ax.text(x[i] - 0.5 * w, mean[i] / 2, "selected on dev:\noptimistic", rotation=90,
                    ha="center", va="center", fontsize=7,
                    bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.9})
        if f"{split}_per_seed" in summary:
            for i, vals in enumerate(summary[f"{split}_per_seed"]):
                v = [float(t) for t in str(vals).split()]
                ax.plot([x[i] + (k - 0.5) * w] * len(v), v, ".", color="k", ms=3,
                        label="each seed" if (i == 0 and k == 0) else None)
    if vote is not None and selected in models:
        i = models.index(selected)
        acc, lo, hi = (float(v) for v in vote)
        ax.errorbar([x[i] + 0.5 * w + 0.13], [acc], yerr=[[acc - lo], [hi - acc]], fmt="D",
                    color="#7a0019", ms=6, capsize=4, elinewidth=1.4, zorder=5,
                    label=f"test, the seeds' vote (graded): {acc:.3f},\n95% interval [{lo:.3f}, {hi:.3f}] "
                          "as context\n(graded with each seed against the margin)")
    if margin is not None:
        ax.axhspan(paper_bert_test - margin, paper_bert_test + margin, color="#009e73", alpha=0.15,
                   lw=0, zorder=0,
                   label=f"graded band of the test accuracy: paper {paper_bert_test:.3f}\n± margin {margin:.3f} = "
                         f"[{paper_bert_test - margin:.3f}, {paper_bert_test + margin:.3f}]\n(the vote and "
                         "every seed inside: agrees)")
    ax.axhline(paper_bert_test, ls="--", color="k", lw=1)
    ax.text(len(summary) - 0.5, paper_bert_test + 0.01, f"paper: BERT test ≈ {paper_bert_test:.3f}",
            ha="right", fontsize=9)
    ax.set_xticks(x, models)
    ax.set_ylim(0, 1)
    ax.set_ylabel("accuracy")  # bars: the mean of the seeds (legend)
    ns = f" (n = {n_texts['dev']} dev / {n_texts['test']} test texts)" if n_texts else ""
    ax.set_title("Figure 1: regard classification, dev and test accuracy" + ns)
    # outside the axes, right: inside it would cover the paper's line and its label; a bar's
    # legend swatch is its plain colour (the hatch marks one selected bar only)
    from matplotlib.container import BarContainer
    from matplotlib.patches import Patch

    handles, labels = ax.get_legend_handles_labels()
    handles = [Patch(facecolor=h.patches[-1].get_facecolor()) if isinstance(h, BarContainer) else h
               for h in handles]
    ax.legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              frameon=False)
    plt.setp(ax.get_xticklabels(), rotation=20, ha="right")
    fig.tight_layout()
    return fig


def figure2(dists: dict[str, pd.DataFrame], sources: list[str], source_labels: dict[str, str],
            *, paper_rows: dict[str, str] | None = None, classifier: str = "",
            vader: str = "VADER, compound >= +0.05 positive, <= -0.05 negative",
            annotated: str | None = None) -> plt.Figure:
    """Rows = sources, columns = (a) regard respect, (b) sentiment respect, (c) regard
    occupation, (d) sentiment occupation; bars = label shares per demographic with 95 % bootstrap
    intervals (regard's widened to every classifier seed). ``dists``: metric name ("regard",
    "sentiment") -> :func:`label_distribution` output. ``paper_rows``: source -> the paper's row
    number ("1", "2"); every other source is a new row tagged ``M1``, ``M2``, ... so no tag
    collides with the paper's rows. ``classifier``: the regard classifier's name (in the title).
    ``annotated``: the source whose regard and sentiment labels are the paper's annotations (its
    row (3)), not the classifier's or VADER's; :func:`drawn_rows` reads the row tags back from the figure."""
    paper_rows = paper_rows or {}
    extra = iter(range(1, len(sources) + 1))
    tags = {s: paper_rows.get(s) or f"M{next(extra)}" for s in sources}
    panels = [("regard", "respect"), ("sentiment", "respect"), ("regard", "occupation"),
              ("sentiment", "occupation")]
    fig, axes = plt.subplots(len(sources), 4, figsize=(17, 3.0 * len(sources)), squeeze=False,
                             sharey=True)
    order = list(SHORT)
    labels = list(LABEL_COLORS)
    w = 0.27
    for r, src in enumerate(sources):
        for c, (metric, ctx) in enumerate(panels):
            ax = axes[r, c]
            d = dists[metric]
            d = d[(d["source"] == src) & (d["context"] == ctx)]
            present = [g for g in order if g in set(d["demographic"])]
            x = np.arange(len(present))
            for k, lab in enumerate(labels):
                s = d[d["label"] == lab].set_index("demographic").reindex(present)
                err = np.clip(np.vstack([s["share"] - s["share_lo"], s["share_hi"] - s["share"]]), 0, None)
                ax.bar(x + (k - 1) * w, s["share"], w, yerr=err, color=LABEL_COLORS[lab], label=lab,
                       capsize=2, error_kw={"lw": 0.8})
            n_of = d.groupby("demographic")["n"].max()
            ax.set_xticks(x, [f"{SHORT[g]}\nn={int(n_of[g])}" for g in present], rotation=30)
            what = f"{metric} (annotations)" if src == annotated else metric
            ax.set_title(f"({tags[src]}{'abcd'[c]}) {source_labels.get(src, src)}\n{what}, {ctx}",
                         fontsize=9)
            ax.set_ylim(0, 1)
            if c == 0:
                ax.set_ylabel("share of samples")
    axes[0, 0].legend(fontsize=8, loc="upper left")
    paper_tags = sorted({tags[s] for s in sources if s in paper_rows})
    rows = (f"rows {', '.join(f'({t})' for t in paper_tags)}: the paper's Figure 2 rows"
            + (f"\nrow ({tags[annotated]}): its annotated samples that carry both annotations, "
               "regard and sentiment from the paper's annotations (not the classifier, not VADER; "
               "the paper chose them by VADER, 3 positive and 3 negative per template)"
               if annotated in tags else "")
            if paper_tags else "")
    extra_tags = [tags[s] for s in sources if s not in paper_rows]
    if extra_tags:
        rows += ("; " if rows else "") + (f"rows {', '.join(f'({t})' for t in extra_tags)}: "
                                          "offline models' samples, not in the paper")
    title = ("Figure 2: regard and sentiment of samples per demographic, 95 % bootstrap intervals "
             "(regard's hold every seed)\n"
             f"regard: {classifier or 'the regard classifier'}; sentiment: {vader}\n{rows}")
    # each line wrapped to fit the figure's width at 10 pt (about 13 characters an inch): a
    # longer line would widen the saved figure beyond its axes (tight bounding box)
    width = int(fig.get_figwidth() * TITLE_CHARS_PER_INCH)
    title = "\n".join(textwrap.fill(line, width) for line in title.split("\n"))
    fig.suptitle(title, y=1.0, fontsize=10)
    fig.tight_layout()
    return fig


def drawn_rows(fig: plt.Figure) -> list[str]:
    """The row tags Figure 2 draws ("1", "2", "3", "M1", ...), read from its panel titles."""
    import re

    tags = [m.group(1) for a in fig.axes if (m := re.match(r"\((\w+?)[abcd]\)", a.get_title()))]
    return list(dict.fromkeys(tags))

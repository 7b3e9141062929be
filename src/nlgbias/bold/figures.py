"""BOLD figures (Dhamala et al. 2021): prompts per group (Table 1 detail), Figures 3-5
(sentiment and toxicity proportions per group and source) and Figure 2 (gender polarity per
profession). Proportion bars carry the number of texts and the exact 95% interval of the share
(:func:`nlgbias.stats.proportion_interval`, as the claims use; never zero-width at a count of 0),
so one toxic text out of 50 reads as what it is; Figure 2's differences carry the table's
bootstrap interval."""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.ticker import FuncFormatter, PercentFormatter

from nlgbias.bold.claims import chat_tuned, fig2_sign_test
from nlgbias.metrics.sentiment import LABELS as SENTIMENTS
from nlgbias.stats import adjust_pvalues, proportion_interval

WIKI = "WIKI"


def source_title(src: str) -> str:
    """A panel's source name, marking the offline LMs as stand-ins for the paper's models (a
    chat-tuned one, given BOLD's raw prompts like a base LM, says so)."""
    if src == WIKI:
        return src
    return f"{src} (chat-tuned stand-in LM)" if chat_tuned([src]) else f"{src} (stand-in LM)"

SENTIMENT_COLORS = {"negative": "#d55e00", "neutral": "#bbbbbb", "positive": "#009e73"}


def pretty(group: str, width: int | None = None) -> str:
    """A group name for axis labels: ``African_Americans`` -> ``African Americans``
    (wrapped at ``width`` characters if given)."""
    name = group.replace("_", " ")
    return textwrap.fill(name, width) if width else name


def plot_sentiment(props: pd.DataFrame, domain: str, title: str, ncols: int = 3,
                   annotate: bool = True) -> plt.Figure:
    """Figures 3a-b, 4, 5: per source, a stacked bar per group with the negative (bottom),
    neutral (grey) and positive (top) proportions; where ``props`` has the counts, black bars
    (right of the bar's centre, clear of the numbers) give the exact 95% interval
    (:func:`nlgbias.stats.proportion_interval`, as the claims use) of the negative share (at
    its top edge) and of the positive share (at its bottom edge)."""
    d = props[props["domain"] == domain]
    sources = list(d["source"].drop_duplicates())
    groups = sorted(d["group"].unique())
    ncols = max(1, min(ncols, len(sources)))
    nrows = int(np.ceil(len(sources) / ncols))
    rotate = len(groups) > 5
    width = max(3.6, 0.62 * len(groups) + 1.4)
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, (3.6 if rotate else 3.2) * nrows
                                                    + 0.9), sharey=True, squeeze=False,
                             layout="constrained")
    for ax, src in zip(axes.flat, sources):
        s = d[d["source"] == src].set_index("group").reindex(groups)
        x = np.arange(len(groups))
        bottom = np.zeros(len(groups))
        for lab in SENTIMENTS:
            vals = s[lab].fillna(0).to_numpy()
            ax.bar(x, vals, bottom=bottom, color=SENTIMENT_COLORS[lab], width=0.75,
                   label=lab, edgecolor="white", linewidth=0.5)
            if annotate and lab != "neutral":
                for xi, b, v in zip(x, bottom, vals):
                    if not np.isfinite(v):
                        continue
                    inside = v > 0.06  # a 0 share is labelled too (just off the axis edge)
                    y = b + v / 2 if inside else (b + v + 0.01 if lab == "negative" else b - 0.01)
                    va = "center" if inside else ("bottom" if lab == "negative" else "top")
                    ax.text(xi, y, f"{100 * v:.0f}", ha="center", va=va, fontsize=7)
            if lab != "neutral" and f"n_{lab}" in s:
                edge = vals if lab == "negative" else 1 - vals
                # the claims' exact interval (never zero-width: 0/12 leaves up to 26% open),
                # not the percentile bootstrap, which collapses at a count of 0
                ok = s["n"].fillna(0).to_numpy() > 0
                lo, hi = np.full(len(groups), np.nan), np.full(len(groups), np.nan)
                if ok.any():
                    lo[ok], hi[ok] = proportion_interval(
                        s.loc[ok, f"n_{lab}"].to_numpy(int), s.loc[ok, "n"].to_numpy(int))
                lo, hi = (lo, hi) if lab == "negative" else (1 - hi, 1 - lo)
                ax.errorbar(x + 0.27, edge, yerr=np.vstack([np.clip(edge - lo, 0, None),
                                                     np.clip(hi - edge, 0, None)]),
                            fmt="none", ecolor="black", elinewidth=0.7, capsize=1.5)
            bottom += vals
        ns = s["n"].fillna(0).astype(int).to_numpy()
        ax.set_xticks(x, [f"{pretty(g, 12)}\nn={k:,}" for g, k in zip(groups, ns)],
                      rotation=45 if rotate else 0,
                      ha="right" if rotate else "center", rotation_mode="anchor")
        ax.tick_params(axis="x", labelsize=8)
        # two lines: a narrow panel's long model name must not run into its neighbour's
        ax.set_title(f"{source_title(src)}\nn = {int(s['n'].sum()):,}", fontsize=10)
        ax.set_ylim(0, 1)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.grid(axis="x", visible=False)
    for ax in axes.flat[len(sources):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("share of texts (%)")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles[::-1], labels[::-1], loc="outside lower center", ncol=3, frameon=False,
               title="VADER sentiment (%: share of texts; black: exact 95% interval of the "
                     "negative and positive shares)", fontsize=9, title_fontsize=9)
    fig.suptitle(title, fontweight="bold")
    return fig


def _interval_dots(ax, d: pd.DataFrame, y: str, count: str, cat: str, hue: str,
                   order: list[str], scale: float = 100.0, lo_col: str = "toxic_lo",
                   hi_col: str = "toxic_hi") -> None:
    """Per category of ``order`` and ``hue``, a dot at ``d[y]`` with its 95% interval
    ``d[lo_col]``-``d[hi_col]`` (times ``scale``) and a ``count / n`` label: a dot is drawn
    for every share, 0 included (a bar's area would misstate a ratio on a non-linear axis and
    a bar of height 0 leaves its legend entry with nothing to point at)."""
    hues = list(d[hue].drop_duplicates())
    colors = sns.color_palette(n_colors=len(hues))
    width = 0.8 / len(hues)
    pos = np.arange(len(order))
    for k, (h, color) in enumerate(zip(hues, colors)):
        s = d[d[hue] == h].set_index(cat).reindex(order)
        val = s[y].to_numpy(float)
        lo, hi = s[lo_col].to_numpy(float) * scale, s[hi_col].to_numpy(float) * scale
        x = pos - 0.4 + width * (k + 0.5)
        err = np.vstack([np.clip(val - lo, 0, None), np.clip(hi - val, 0, None)])
        ax.errorbar(x, val, yerr=err, fmt="o", color=color, ecolor=color, elinewidth=1.2,
                    capsize=2.5, markersize=5, label=h)
        for xi, top, c, n in zip(x, np.nan_to_num(hi), s[count].to_numpy(), s["n"].to_numpy()):
            if np.isfinite(n):
                ax.annotate(f"{int(c)}/{int(n):,}", (xi, top), xytext=(0, 3),
                            textcoords="offset points", ha="center", va="bottom", fontsize=6.5,
                            rotation=90)
    ax.set_xticks(pos, order)


def plot_toxicity(props: pd.DataFrame, domain: str, title: str) -> plt.Figure:
    """Figures 3c-d: percent of toxic texts per group (x) and source (colour): a dot per share
    with its exact 95% interval (Clopper-Pearson where a count is below 5, else Wilson: never
    zero-width, so 0/50 shows how much it leaves open) and ``toxic / n`` above it, on a linear
    axis (dots, not bars: the heights compare as ratios)."""
    d = props[props["domain"] == domain].copy()
    d["toxic %"] = 100 * d["toxic"]
    lo, hi = proportion_interval(d["n_toxic"].to_numpy(), d["n"].to_numpy())
    d["toxic_lo"], d["toxic_hi"] = lo, hi
    groups = sorted(d["group"].unique())
    n_src = d["source"].nunique()
    fig, ax = plt.subplots(figsize=(max(5.5, len(groups) * (0.9 + 0.45 * n_src) + 2.5), 4.2))
    d["source"] = d["source"].map(source_title)
    _interval_dots(ax, d, "toxic %", "n_toxic", "group", "source", groups)
    ax.set_xticklabels([pretty(g, 14) for g in groups])
    ax.set_ylabel("toxic texts (%), exact 95% interval")
    top = float(np.nanmax(d["toxic_hi"].to_numpy(float))) * 100 if len(d) else 0.0
    top = max(top * 1.35, 0.5)
    ax.set_ylim(-0.02 * top, top)  # a dot at 0 is drawn whole
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}%"))
    ax.legend(title="source (n per group: see labels)", frameon=False, bbox_to_anchor=(1.0, 1.0),
              loc="upper left")
    ax.set_title(title, loc="left")
    fig.tight_layout()
    return fig


def plot_fig2(f2: pd.DataFrame) -> plt.Figure:
    """Figure 2: proportion male - proportion female (Gender-Max) per profession (y) and source
    (colour), with ``n`` per bar in the labels and the bootstrap 95% interval
    (``male - female_lo`` / ``male - female_hi``); professions ordered by the WIKI value."""
    d = f2.copy()
    d["profession"] = d["group"].str.replace("_", " ")
    first = d["source"].iloc[0]
    order = d[d["source"] == first].sort_values("male - female")["profession"].tolist()
    sources = list(d["source"].drop_duplicates())
    fig, ax = plt.subplots(figsize=(8.5, 0.3 * len(order) * (1 + 0.5 * (len(sources) - 1)) + 1.5))
    colors = sns.color_palette(n_colors=len(sources))
    width = 0.8 / len(sources)
    pos = np.arange(len(order))
    for k, (src, color) in enumerate(zip(sources, colors)):
        s = d[d["source"] == src].set_index("profession").reindex(order)
        y = pos - 0.4 + width * (k + 0.5)
        val = s["male - female"].to_numpy(float)
        err = (np.vstack([np.clip(val - s["male - female_lo"].to_numpy(float), 0, None),
                          np.clip(s["male - female_hi"].to_numpy(float) - val, 0, None)])
               if "male - female_lo" in s else None)
        ax.barh(y, val, height=width, color=color,
                label=f"{source_title(src)}: {int(s['n'].sum()):,} texts, "
                      f"{int(s['n'].min()):,}-{int(s['n'].max()):,} per profession")
        if err is not None:
            wide = (s["male - female_hi"] - s["male - female_lo"]).to_numpy(float) > 0
            zero = np.isfinite(val) & (val == 0)
            # a bar with a height: its bootstrap whisker
            bar = wide & ~zero
            ax.errorbar(val[bar], y[bar], xerr=err[:, bar], fmt="none", ecolor="black",
                        elinewidth=0.7, capsize=1.5)
            # a zero-height bar: an open marker at 0 in the source's colour with its whisker
            # (no whisker floats over an empty bar)
            mid = zero & wide
            ax.errorbar(val[mid], y[mid], xerr=err[:, mid], fmt="o", ms=3.5, mfc="white",
                        mec=color, ecolor="black", elinewidth=0.7, capsize=1.5)
            # no gender-polar text at all (0 of n): the bootstrap interval is a point, so
            # each gender's share is bounded by the exact 95% interval of 0/n instead
            n_arr = s["n"].to_numpy(float)
            for yi, nn in zip(y[zero & ~wide], n_arr[zero & ~wide]):
                hi0 = float(proportion_interval(0, int(nn))[1])
                ax.errorbar([0.0], [yi], xerr=[[hi0], [hi0]], fmt="o", ms=3.5, mfc="white",
                            mec=color, ecolor="0.4", elinewidth=0.7, capsize=1.5, ls="none")
                ax.text(hi0 + 0.004, yi, f"0/{int(nn)} polar (share ≤ {hi0:.1%})", va="center",
                        ha="left", fontsize=6, color="0.35")
            # significance as the claims grade it: exact sign test, Holm over the professions
            p = np.array([fig2_sign_test(r)[2] for r in s.to_dict("records")])
            sig = pd.Series(adjust_pvalues(p, "holm") < 0.05)
            ends = np.where(val >= 0, s["male - female_hi"], s["male - female_lo"]).astype(float)
            for yi, e, v, ok in zip(y, ends, val, sig.to_numpy()):
                if ok:
                    ax.text(e + (0.01 if v >= 0 else -0.01), yi, "*", va="center",
                            ha="left" if v >= 0 else "right", fontsize=9)
    ax.set_yticks(pos, order)
    ax.invert_yaxis()
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlabel("share male − share female (Gender-Max on the rebuilt hard-debiased word2vec, "
                  "percentage points)\n"
                  "bootstrap 95% interval (open marker: a zero difference; 0/n polar: each "
                  "share's\nexact 95% bound); * male ≠ female texts (exact sign test, "
                  "Holm over the\nprofessions of the source, p < 0.05)")
    ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_ylabel("")
    ax.legend(frameon=False, bbox_to_anchor=(0.5, -0.115), loc="upper center", fontsize=8)
    ax.set_title("BOLD Fig. 2: gender polarity per profession\nscorer w2v-hd-rebuilt: the "
                 "hard-debiased word2vec rebuilt offline, not the paper's debiaswe file",
                 fontsize=10)
    fig.tight_layout()
    return fig


def plot_generation_lengths(words: pd.DataFrame, models: list[str], max_new_tokens: int,
                            first_sentence: bool, paper_bert_length: int | None = None,
                            ) -> plt.Figure:
    """Words in the continuation per domain (x) and source (colour), a box per source and
    domain with its n under it (``words``: a row per continuation with ``model, domain,
    words``; ``models``: the sources in legend order). The legend names each model as a
    stand-in (a chat-tuned one says so) with its rows; the title says the length cap and the
    first-sentence cut are ours, not the paper's (which states no length for GPT-2 or CTRL;
    ``paper_bert_length``: its BERT's, named)."""
    order = [m for m in models if m in set(words["model"])]
    domains = list(dict.fromkeys(words["domain"]))
    n_of = words.groupby("model").size()
    label = {m: f"{source_title(WIKI if m.lower() == 'wiki' else m)} (n = {n_of[m]:,})"
             for m in order}
    d = words.assign(source=words["model"].map(label))
    fig, ax = plt.subplots(figsize=(9.5, 4.6))
    hue_order = [label[m] for m in order]
    sns.boxplot(data=d, x="domain", y="words", hue="source", ax=ax, fliersize=1.5,
                order=domains, hue_order=hue_order)
    # n per box, under it (the boxes of one domain share its x position, dodged by source)
    counts = d.groupby(["domain", "source"]).size()
    width = 0.8 / len(hue_order)
    for i, dom in enumerate(domains):
        for k, src in enumerate(hue_order):
            n = int(counts.get((dom, src), 0))
            ax.text(i - 0.4 + width * (k + 0.5), -0.02, f"{n:,}", transform=ax.get_xaxis_transform(),
                    ha="center", va="top", fontsize=6.5, rotation=90, color="0.3")
    ax.set_xticks(range(len(domains)), [pretty(x, 12) for x in domains])
    ax.tick_params(axis="x", pad=26)
    cap = (f"models: at most {max_new_tokens} new tokens"
           + (", cut at the first sentence end" if first_sentence else "")
           + "; WIKI: the rest of the Wikipedia sentence\nthe cap and the cut are our choice: "
           "the paper states no length for GPT-2 or CTRL"
           + (f" (its BERT: {paper_bert_length} tokens)" if paper_bert_length else "")
           + "; n per box under each box")
    ax.set(xlabel="", ylabel="words in the continuation")
    ax.set_title(f"BOLD continuation length by domain\n{cap}", fontsize=10)
    ax.legend(title="", fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig


def plot_prompts_per_group(counts: pd.DataFrame):
    """Horizontal bars of prompts per group, one panel per domain (BOLD Table 1 detail)."""
    domains = list(counts["domain"].drop_duplicates())
    sizes = [counts["domain"].eq(d).sum() for d in domains]
    fig, axes = plt.subplots(len(domains), 1, figsize=(8, 0.28 * sum(sizes) + 1.2 * len(domains)),
                             gridspec_kw={"height_ratios": sizes}, sharex=False)
    palette = sns.color_palette(n_colors=len(domains))
    for ax, d, color in zip(np.atleast_1d(axes), domains, palette):
        sub = counts[counts["domain"] == d].sort_values("prompts", ascending=False)
        labels = sub["group"].str.replace("_", " ")
        sns.barplot(x=sub["prompts"].to_numpy(), y=labels.to_numpy(), ax=ax, color=color)
        ax.set_title(f"{d.replace('_', ' ')} ({int(sub['prompts'].sum()):,} prompts)", loc="left",
                     fontsize=11)
        ax.set_ylabel("")
        ax.set_xlabel("")
        for c in ax.containers:
            ax.bar_label(c, fmt="{:,.0f}", fontsize=8, padding=2)
    np.atleast_1d(axes)[-1].set_xlabel("prompts")
    fig.suptitle("BOLD prompts per group", fontweight="bold", y=1.0)
    fig.tight_layout()
    return fig

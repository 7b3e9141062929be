"""Figures of notebook 07 (HolisticBias, Smith et al. 2022): Figure 2 (perplexity by axis and
template), Figure 3 (style-cluster probability against descriptor frequency), Gen Bias bars.

Figure 3's x-axis in the paper is a descriptor's frequency in BlenderBot 2.0 3B's pre-training
data (App. B.2.1). That data is not available; :func:`descriptor_frequency` uses a general-English
word-frequency table (``wordfreq``, its "en" list: Zipf-scaled frequencies from Wikipedia,
subtitles, news, books, web text, Twitter, Reddit), and like the paper keeps descriptors written without
a space (a hyphenated compound such as "well-to-do" is kept: wordfreq combines its parts).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from nlgbias.plots import spell_emoji

FREQ_SOURCE = "wordfreq 'en' (general English), stand-in for BlenderBot 2.0 pre-training data"


def descriptor_frequency(descriptors: Sequence[str]) -> pd.Series:
    """Frequency per occurrence of each descriptor written without a space in general English
    (wordfreq "en"; a hyphenated compound is one of them, its parts combined by wordfreq);
    descriptors with a space get NaN (the paper shows single-word descriptors only)."""
    from wordfreq import word_frequency

    out = {}
    for d in descriptors:
        one = len(d.split()) == 1
        out[d] = word_frequency(d.lower(), "en") if one else np.nan
    return pd.Series(out, name="frequency")


def figure2(ppl: pd.DataFrame, *, title: str = "") -> plt.Figure:
    """Perplexity (log scale) of HolisticBias sentences by axis (left) and by template (right),
    one row per model (column ``model``)."""
    models = list(dict.fromkeys(ppl["model"]))
    fig, axes = plt.subplots(len(models), 2, figsize=(15, 4.8 * len(models)), squeeze=False,
                             gridspec_kw={"width_ratios": [1, 1.5]})
    for row, m in zip(axes, models):
        d = ppl[ppl["model"] == m].copy()
        d["template "] = d["template"].str.replace("{noun_phrase}", "{NP}", regex=False) \
            .str.replace("{plural_noun_phrase}", "{PNP}", regex=False)
        ax_order = d.groupby("axis")["perplexity"].median().sort_values().index
        t_order = d.groupby("template ")["perplexity"].median().sort_values().index
        sns.boxplot(d, x="axis", y="perplexity", order=ax_order, ax=row[0], log_scale=True,
                    fliersize=1, color="#8fb3d9")
        sns.boxplot(d, x="template ", y="perplexity", order=t_order, ax=row[1], log_scale=True,
                    fliersize=1, color="#d9b38f")
        for a, what, order in zip(row, ("axis", "template "), (ax_order, t_order)):
            a.set_title(f"{m}: perplexity by {what.strip()} (n = {len(d):,} sentences)")
            counts = d[what].value_counts()
            a.set_xticks(range(len(order)), [f"{k} (n={counts[k]})" for k in order], fontsize=8, rotation=70,
                         ha="right")
            a.set_xlabel("")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def cluster_probability_by_descriptor(resp: pd.DataFrame, clusters: Mapping[str, Sequence[str]]
                                      ) -> pd.DataFrame:
    """Per descriptor, the mean probability of each cluster (summed over its styles), averaged
    first within templates then over templates (as Figure 3)."""
    summed = pd.DataFrame({n: resp[list(c)].sum(axis=1) for n, c in clusters.items()})
    summed["template"], summed["descriptor"] = resp["template"].to_numpy(), resp["descriptor"].to_numpy()
    summed["axis"] = resp["axis"].to_numpy()
    per_t = summed.groupby(["axis", "descriptor", "template"])[list(clusters)].mean()
    return per_t.groupby(level=[0, 1]).mean().reset_index()


def figure3(by_desc: pd.DataFrame, clusters: Sequence[str], *, model: str, annotate: int = 3
            ) -> plt.Figure:
    """Cluster probability per descriptor against its word frequency (log x), one panel per
    cluster; the ``annotate`` highest-probability descriptors of each panel are labelled."""
    d = by_desc.dropna(subset=["frequency"])
    d = d[d["frequency"] > 0]
    n = len(clusters)
    cols = 2 if n % 3 and not n % 2 else min(n, 3)  # no empty panel where two columns fill the grid
    fig, axes = plt.subplots(int(np.ceil(n / cols)), cols, figsize=(5.2 * cols, 4.2 * np.ceil(n / cols)),
                             squeeze=False)
    # 13 axes: neighbours in the order differ in hue and lightness (tab20's dark then light shades), and
    # each axis has its own marker
    axes_order = sorted(d["axis"].unique())
    palette = dict(zip(axes_order, sns.color_palette("tab20", 20)[::2] + sns.color_palette("tab20", 20)[1::2],
                       strict=False))
    for a, c in zip(axes.flat, clusters):
        sns.scatterplot(d, x="frequency", y=c, hue="axis", style="axis", hue_order=axes_order,
                        style_order=axes_order, palette=palette, ax=a, s=22, legend=a is axes.flat[0])
        a.set_xscale("log")
        a.set_title(textwrap.fill(spell_emoji(c), 48), fontsize=9)  # spelt-out names are long: wrap them
        a.set_xlabel("word frequency (wordfreq, general English)")
        a.set_ylabel("mean cluster probability")
        for k, (_, r) in enumerate(d.nlargest(annotate, c).iterrows()):  # staggered: near points do not overlap
            a.annotate(r["descriptor"], (r["frequency"], r[c]), xytext=(6, 8 - 11 * k), textcoords="offset points",
                       fontsize=7, arrowprops={"arrowstyle": "-", "lw": 0.4, "color": "0.4"})
    for a in list(axes.flat)[n:]:
        a.set_visible(False)
    if n:
        h, lab = axes.flat[0].get_legend_handles_labels()
        if axes.flat[0].get_legend():
            axes.flat[0].get_legend().remove()
        fig.legend(h, lab, loc="lower center", ncol=7, fontsize=7, frameon=False)
    fig.suptitle(f"{model}: style-cluster probability vs descriptor frequency (descriptors without a space, "
                 f"hyphenated compounds included; {len(d)} shown)")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


def _cluster_label(cluster: str, width: int = 18) -> str:
    """``C<k>`` over its spelt-out classes, one per line, each wrapped to ``width`` characters."""
    head, _, names = spell_emoji(cluster).partition(" ")
    return "\n".join([head, *(textwrap.fill(n, width) for n in names.split(", ") if n)])


def gen_bias_figure(table: pd.DataFrame, clusters: Sequence[str], null: pd.DataFrame | None = None,
                    *, basis: str = "", n: Mapping[str, int] | None = None) -> plt.Figure:
    """Partial Gen Bias per cluster (bars, linear axis), one panel per model (the models differ
    by orders of magnitude, so each has its own scale); error bars from ``<cluster>_lo``/``_hi``
    (95 % descriptor-bootstrap interval) when the table has them; the permutation null's mean
    of each cluster (``null``: columns model, statistic ``partial:<cluster>``, null_mean) drawn
    as a black dash across its bar. ``basis`` (which responses) goes in the title, ``n`` (model ->
    responses) in each panel's."""
    clusters = list(clusters)
    models = list(table["model"])
    fig, axes = plt.subplots(1, max(len(models), 1), figsize=(8.0 * max(len(models), 1), 5.6), squeeze=False)
    x = np.arange(len(clusters))
    has_ci = all(f"{c}_lo" in table and f"{c}_hi" in table for c in clusters)
    colors = sns.color_palette(n_colors=max(len(models), 1))
    nm = (null.set_index(["model", "statistic"])["null_mean"] if null is not None and len(null) else None)
    for i, (ax, (_, r)) in enumerate(zip(axes.flat, table.iterrows())):
        y = r[clusters].to_numpy(dtype=float)
        err = (np.clip(np.vstack([y - r[[f"{c}_lo" for c in clusters]].to_numpy(dtype=float),
                          r[[f"{c}_hi" for c in clusters]].to_numpy(dtype=float) - y]), 0, None)
               if has_ci else None)
        ax.bar(x, y, 0.7, yerr=err, capsize=2, color=colors[i], label="observed")
        if nm is not None:
            lv = [nm.get((r["model"], f"partial:{c}"), np.nan) for c in clusters]
            ax.hlines(lv, x - 0.38, x + 0.38, colors="black", linewidth=2,
                      label="permutation null (mean)")
        ax.set_xticks(x, [_cluster_label(c, width=14) for c in clusters], fontsize=6)
        ax.set_ylim(bottom=0)
        ax.set_ylabel("Partial Gen Bias (x1000)")
        ax.set_title(f"{r['model']}" + (f" ({n[r['model']]:,} responses)" if n and r["model"] in n else ""),
                     fontsize=10)
        ax.legend(fontsize=8)
    fig.suptitle("Partial Gen Bias per style cluster (x1000; nade stand-in)"
                 + ("; 95 % bootstrap interval (descriptors within axis)" if has_ci else "")
                 + ("; black: the no-descriptor-effect null" if nm is not None else "")
                 + (f"\n{basis}" if basis else ""), fontsize=10)
    fig.tight_layout()
    return fig


__all__ = ["FREQ_SOURCE", "cluster_probability_by_descriptor", "descriptor_frequency", "figure2",
           "figure3", "gen_bias_figure"]

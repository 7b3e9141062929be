"""Figures of notebook 07 (HolisticBias, Smith et al. 2022): Figure 2 (perplexity by axis and
template), Figure 3 (style-cluster probability against descriptor frequency), Gen Bias bars.

Figure 3's x-axis in the paper is a descriptor's frequency in BlenderBot 2.0 3B's pre-training
data (App. B.2.1). That data is not available; :func:`descriptor_frequency` uses a general-English
word-frequency table (``wordfreq``, its "en" list: Zipf-scaled frequencies from Wikipedia,
subtitles, news, books, web text, Twitter, Reddit), and like the paper keeps one-word descriptors.
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
    """Frequency per occurrence of each one-word descriptor in general English (wordfreq "en");
    multi-word descriptors get NaN (the paper shows one-word descriptors only)."""
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
        for a, what in zip(row, ("axis", "template")):
            a.set_title(f"{m}: perplexity by {what} (n = {len(d):,} sentences)")
            a.tick_params(axis="x", rotation=70, labelsize=8)
            a.set_xlabel("")
            for lab in a.get_xticklabels():
                lab.set_horizontalalignment("right")
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
    cols = min(n, 3)
    fig, axes = plt.subplots(int(np.ceil(n / cols)), cols, figsize=(5.2 * cols, 4.2 * np.ceil(n / cols)),
                             squeeze=False)
    for a, c in zip(axes.flat, clusters):
        sns.scatterplot(d, x="frequency", y=c, hue="axis", ax=a, s=22, legend=a is axes.flat[0])
        a.set_xscale("log")
        a.set_title(textwrap.fill(spell_emoji(c), 48), fontsize=9)  # spelt-out names are long: wrap them
        a.set_xlabel("word frequency (wordfreq, general English)")
        a.set_ylabel("mean cluster probability")
        for _, r in d.nlargest(annotate, c).iterrows():
            a.annotate(r["descriptor"], (r["frequency"], r[c]), fontsize=7)
    for a in list(axes.flat)[n:]:
        a.set_visible(False)
    if n:
        h, lab = axes.flat[0].get_legend_handles_labels()
        if axes.flat[0].get_legend():
            axes.flat[0].get_legend().remove()
        fig.legend(h, lab, loc="lower center", ncol=7, fontsize=7, frameon=False)
    fig.suptitle(f"{model}: style-cluster probability vs descriptor frequency (one-word descriptors, "
                 f"{len(d)} shown)")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


def _cluster_label(cluster: str, width: int = 18) -> str:
    """``C<k>`` over its spelt-out classes, one per line, each wrapped to ``width`` characters."""
    head, _, names = spell_emoji(cluster).partition(" ")
    return "\n".join([head, *(textwrap.fill(n, width) for n in names.split(", ") if n)])


def gen_bias_figure(table: pd.DataFrame, clusters: Sequence[str]) -> plt.Figure:
    """Partial Gen Bias per cluster (bars) per model; error bars from ``<cluster>_lo``/``_hi``
    (95 % descriptor-bootstrap interval) when the table has them."""
    clusters = list(clusters)
    models = list(table["model"])
    fig, ax = plt.subplots(figsize=(10, 5.2))
    width = 0.8 / max(len(models), 1)
    x = np.arange(len(clusters))
    has_ci = all(f"{c}_lo" in table and f"{c}_hi" in table for c in clusters)
    colors = sns.color_palette(n_colors=len(models))
    for i, (_, r) in enumerate(table.iterrows()):
        y = r[clusters].to_numpy(dtype=float)
        err = (np.clip(np.vstack([y - r[[f"{c}_lo" for c in clusters]].to_numpy(dtype=float),
                          r[[f"{c}_hi" for c in clusters]].to_numpy(dtype=float) - y]), 0, None)
               if has_ci else None)
        ax.bar(x + (i - (len(models) - 1) / 2) * width, y, width, yerr=err, capsize=2,
               label=r["model"], color=colors[i])
    ax.set_xticks(x, [_cluster_label(c) for c in clusters], fontsize=7)
    ax.set_yscale("log")  # the models differ by orders of magnitude: a linear axis hides the smaller
    ax.set_ylabel("Partial Gen Bias (x1000, log scale)")
    ax.legend(fontsize=8)
    ax.set_title("Partial Gen Bias per style cluster (x1000; nade stand-in)"
                 + ("; 95 % bootstrap interval (descriptors within axis)" if has_ci else ""))
    fig.tight_layout()
    return fig


__all__ = ["FREQ_SOURCE", "cluster_probability_by_descriptor", "descriptor_frequency", "figure2",
           "figure3", "gen_bias_figure"]

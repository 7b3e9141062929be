"""Bias labels for bias-reduction tuning (HolisticBias, Smith et al. 2022, §5.2, Figure 4, App. B.2).

Each response r_tdi to a templated sentence with descriptor d and template t has a style
probability vector p_tdi (HolisticBias: 217 dialogue styles; here the ``nade`` stand-in of
:mod:`nlgbias.metrics.style`). With

- m_d  = (1/T) sum_t (1/N_td) sum_i p_tdi  (mean style vector of descriptor d, averaged over templates)
- m̄    = (1/D) sum_d m_d                   (mean over descriptors)

the *bias value* of a response is the scaled projection of its deviation from m̄ onto the
descriptor's "direction of bias" (§5.2)::

    b_tdi = (p_tdi - m̄) · (m_d - m̄) / ||m_d - m̄||^α        α ∈ {0, 1, 2}; the paper uses α = 0

A response is tagged ``"bias"`` if b > β and ``"no_bias"`` otherwise; the tag is appended to the
end of the context and the model is tuned on tagged context/response pairs (Appendix C;
:mod:`nlgbias.holistic.tuning`). The paper picks β empirically: it tunes one model per β of a
sweep and keeps the β whose tuned model has the lowest Full Gen Bias (Table 7: DialoGPT
β = 0.0003, BlenderBot 2.0 3B β = 0.0030, both the lowest of their sweeps) — see
:func:`choose_beta`.

Examples:
    >>> import numpy as np
    >>> p = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [0.5, 0.5]])
    >>> d = ["a", "a", "b", "b"]; t = ["x", "y", "x", "y"]
    >>> b = bias_values(p, d, t, alpha=0)
    >>> [round(float(v), 4) for v in b]
    [0.0, 0.0, 0.0, 0.0]
    >>> p = np.array([[0.9, 0.1], [0.7, 0.3], [0.2, 0.8], [0.2, 0.8]])
    >>> [round(float(v), 4) for v in bias_values(p, d, t, alpha=0)]
    [0.24, 0.12, 0.18, 0.18]
    >>> tag_responses([0.24, 0.12, 0.18, 0.18], beta=0.15).tolist()
    ['bias', 'no_bias', 'bias', 'bias']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

BIAS_TAG = "bias"
NO_BIAS_TAG = "no_bias"
#: the β values the paper swept (Tables 4 and 7): DialoGPT and BlenderBot 2.0 3B
PAPER_BETAS = (0.0003, 0.0010, 0.0030, 0.0100)


@dataclass(frozen=True)
class DescriptorMeans:
    """m_d per descriptor (rows of ``m``, in the order of ``descriptors``) and m̄."""

    descriptors: list[str]
    m: np.ndarray  # D x S
    m_bar: np.ndarray  # S

    def row(self, descriptor: str) -> np.ndarray:
        return self.m[self.descriptors.index(descriptor)]


def _check_inputs(probs, descriptors, templates) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    p = np.asarray(probs, dtype=float)
    if p.ndim != 2:
        raise ValueError(f"style probabilities must be a 2-D array (responses x styles), got shape {p.shape}")
    d = np.asarray(descriptors, dtype=object)
    t = np.asarray(templates, dtype=object)
    if len(d) != len(p) or len(t) != len(p):
        raise ValueError(f"{len(p)} style vectors but {len(d)} descriptors and {len(t)} templates: "
                         "need one descriptor and one template per response")
    if len(p) == 0:
        raise ValueError("no responses: cannot compute descriptor means")
    if not np.isfinite(p).all():
        raise ValueError("style probabilities contain NaN or infinite values")
    return p, d, t


def descriptor_means(probs, descriptors: Sequence[str], templates: Sequence[str]) -> DescriptorMeans:
    """m_d (mean over templates of the per-template mean style vector) and m̄ = mean_d m_d (§5.2)."""
    p, d, t = _check_inputs(probs, descriptors, templates)
    frame = pd.DataFrame(p)
    frame["_d"], frame["_t"] = d, t
    per_td = frame.groupby(["_d", "_t"], sort=True).mean()  # (1/N_td) sum_i p_tdi
    m = per_td.groupby(level="_d", sort=True).mean()  # (1/T) sum_t
    return DescriptorMeans([str(x) for x in m.index], m.to_numpy(), m.to_numpy().mean(axis=0))


def bias_values(probs, descriptors: Sequence[str], templates: Sequence[str], alpha: float = 0,
                means: DescriptorMeans | None = None) -> np.ndarray:
    """b_tdi = (p_tdi - m̄)·(m_d - m̄) / ||m_d - m̄||^α for every response (§5.2).

    ``means`` (default: computed from these responses) lets responses be scored against the
    means of another set. A descriptor whose m_d equals m̄ has b = 0 for every α.
    """
    if alpha not in (0, 1, 2):
        raise ValueError(f"alpha must be 0, 1 or 2 (the exponents tested in §5.2), got {alpha!r}")
    p, d, t = _check_inputs(probs, descriptors, templates)
    means = means or descriptor_means(p, d, t)
    index = {name: i for i, name in enumerate(means.descriptors)}
    missing = sorted({str(x) for x in d} - set(index))
    if missing:
        raise KeyError(f"no mean style vector for descriptor(s) {', '.join(missing[:5])}")
    direction = means.m - means.m_bar  # D x S
    norm = np.linalg.norm(direction, axis=1)
    rows = np.array([index[str(x)] for x in d])
    dots = np.einsum("ns,ns->n", p - means.m_bar, direction[rows])
    if alpha == 0:
        return dots
    scale = norm[rows] ** alpha
    return np.divide(dots, scale, out=np.zeros_like(dots), where=scale > 0)


def tag_responses(b, beta: float) -> np.ndarray:
    """``"bias"`` where b > β, else ``"no_bias"`` (§5.2)."""
    b = np.asarray(b, dtype=float)
    return np.where(b > beta, BIAS_TAG, NO_BIAS_TAG)


def beta_sweep(b, betas: Sequence[float]) -> pd.DataFrame:
    """Share of responses tagged "bias" at each β (how the sweep of Table 7 tags the data)."""
    b = np.asarray(b, dtype=float)
    rows = [{"beta": float(beta), "n_responses": len(b), "n_bias": int((b > beta).sum()),
             "share_bias": float((b > beta).mean()) if len(b) else float("nan")} for beta in betas]
    return pd.DataFrame(rows)


def quantile_betas(b, shares: Sequence[float]) -> list[float]:
    """β values that tag roughly the given shares of responses "bias" (b's upper quantiles).

    Our stand-in style classifier has another number of classes and another spread than the
    paper's, so the paper's absolute β values tag very different shares; these β values put
    the sweep where it tags comparable shares.
    """
    b = np.asarray(b, dtype=float)
    for s in shares:
        if not 0 < s < 1:
            raise ValueError(f"shares must lie strictly between 0 and 1, got {s!r}")
    return [float(np.quantile(b, 1 - s)) for s in shares]


def choose_beta(results: pd.DataFrame, metric: str = "full_gen_bias") -> float:
    """The paper's rule (App. B.2, Table 7): the β whose tuned model has the lowest ``metric``.

    ``results`` has one row per tuned model with columns ``beta`` and ``metric``.
    """
    missing = {"beta", metric} - set(results.columns)
    if missing:
        raise KeyError(f"choose_beta needs column(s) {', '.join(sorted(missing))}")
    tuned = results.dropna(subset=["beta", metric])
    if tuned.empty:
        raise ValueError("no tuned model with a β and a measured bias to choose from")
    return float(tuned.loc[tuned[metric].idxmin(), "beta"])


def distinct_descriptors(means: DescriptorMeans, n: int = 2, eligible: Sequence[str] | None = None) -> list[str]:
    """The ``n`` descriptors (of ``eligible``, default all) whose mean style vector lies farthest
    from m̄ (||m_d - m̄||), i.e. the most characteristic response styles: Figure 4's examples."""
    dist = np.linalg.norm(means.m - means.m_bar, axis=1)
    allowed = set(means.descriptors if eligible is None else eligible)
    order = [i for i in np.argsort(-dist, kind="stable") if means.descriptors[i] in allowed]
    if len(order) < n:
        raise ValueError(f"only {len(order)} eligible descriptors, need {n}")
    return [means.descriptors[i] for i in order[:n]]


def figure4_projection(probs, descriptors: Sequence[str], templates: Sequence[str],
                       pair: Sequence[str]) -> dict[str, pd.DataFrame]:
    """2-D view of the style space for Figure 4: two descriptors' responses, their m_d and m̄.

    The plane is the one spanned by the two directions m_d - m̄ (orthonormalised), centred at m̄,
    so both directions of bias are drawn exactly; each response is projected onto it and its bias
    value (α = 0) is kept. Returns ``{"responses": ..., "means": ...}`` frames with x, y columns.
    """
    p, d, t = _check_inputs(probs, descriptors, templates)
    if len(pair) != 2 or pair[0] == pair[1]:
        raise ValueError(f"figure 4 needs two different descriptors, got {pair!r}")
    means = descriptor_means(p, d, t)
    for name in pair:
        if name not in means.descriptors:
            raise KeyError(f"descriptor {name!r} has no responses")
    u = means.row(pair[0]) - means.m_bar
    v = means.row(pair[1]) - means.m_bar
    e1 = u / (np.linalg.norm(u) or 1.0)
    v_perp = v - (v @ e1) * e1
    e2 = v_perp / (np.linalg.norm(v_perp) or 1.0)
    b = bias_values(p, d, t, alpha=0, means=means)
    keep = np.isin(d, list(pair))
    centred = p[keep] - means.m_bar
    responses = pd.DataFrame({"descriptor": d[keep], "template": t[keep], "x": centred @ e1,
                              "y": centred @ e2, "bias_value": b[keep]})
    rows = [{"point": "m̄ (all descriptors)", "descriptor": "", "x": 0.0, "y": 0.0}]
    for name in pair:
        c = means.row(name) - means.m_bar
        rows.append({"point": f"m_d ({name})", "descriptor": name, "x": float(c @ e1), "y": float(c @ e2)})
    return {"responses": responses, "means": pd.DataFrame(rows)}


def plot_figure4(projection: dict[str, pd.DataFrame], beta: float, title: str = ""):
    """Figure 4 from real data: responses of two descriptors in the plane of their m_d - m̄,
    coloured by tag at threshold β, with m_d, m̄ and each descriptor's direction of bias."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    resp = projection["responses"].assign(
        tag=lambda f: np.where(f["bias_value"] > beta, BIAS_TAG, NO_BIAS_TAG))
    # identical responses share a point: a small seeded jitter (1.5% of each axis's range) shows them
    rng = np.random.default_rng(0)
    span = [max(float(resp[c].max() - resp[c].min()), 1e-9) for c in ("x", "y")]
    resp = resp.assign(x=resp["x"] + rng.normal(0, 0.015 * span[0], len(resp)),
                       y=resp["y"] + rng.normal(0, 0.015 * span[1], len(resp)))
    counts = resp.groupby(["descriptor", "tag"]).size()
    resp["descriptor"] = resp["descriptor"].map(
        lambda d: f"{d} (n = {int(counts[d].sum())}: " + ", ".join(f"{t} {int(v)}" for t, v in counts[d].items()) + ")")
    means = projection["means"]
    fig, ax = plt.subplots(figsize=(8.5, 5))
    sns.scatterplot(data=resp, x="x", y="y", hue="descriptor", style="tag",
                    style_order=[NO_BIAS_TAG, BIAS_TAG], markers={NO_BIAS_TAG: "o", BIAS_TAG: "X"},
                    alpha=0.7, ax=ax)
    for _, row in means.iterrows():
        ax.scatter(row["x"], row["y"], s=260, marker="*", facecolors="none", edgecolors="black", zorder=5)
        ax.annotate(row["point"], (row["x"], row["y"]), textcoords="offset points", xytext=(6, 6))
        if row["descriptor"]:
            ax.annotate("", xy=(row["x"], row["y"]), xytext=(0, 0),
                        arrowprops={"arrowstyle": "->", "color": "black", "lw": 1.2})
    ax.set_xlabel("style-space coordinate along m_d1 − m̄")
    ax.set_ylabel("orthogonal coordinate (towards m_d2 − m̄)")
    ax.set_title((title or f"Bias labels in style space (β = {beta:g})") + "\n(points jittered by 1.5% of the axis "
                 "range so that identical responses show)", fontsize=10)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1), fontsize=8, frameon=False)  # off the points
    ax.margins(x=0.15)  # room for the m_d labels
    fig.tight_layout()
    return fig


__all__ = ["BIAS_TAG", "NO_BIAS_TAG", "PAPER_BETAS", "DescriptorMeans", "beta_sweep", "bias_values",
           "choose_beta", "descriptor_means", "distinct_descriptors", "figure4_projection", "plot_figure4", "quantile_betas",
           "tag_responses"]

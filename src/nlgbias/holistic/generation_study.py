"""Notebook 07's generation-bias study (HolisticBias, Smith et al. 2022, §3.3.3, §4.2, App. A.4;
Tables 1, 4, 7, 8, 9, Figure 3): the response sample, the responses, refusals, style clusters
and their validation, Gen Bias beside its permutation null, and the prose that reports them.

- :func:`generation_sample`: one sentence sample for every chat model (the same templates and
  descriptors), every (template, descriptor) cell holding ``nouns`` sentences;
- :func:`generate_responses`: each model's responses through the generation engine, masked,
  style-scored and refusal-labelled (:mod:`nlgbias.holistic.responses`,
  :mod:`nlgbias.holistic.refusal`);
- :func:`refusal_tables`: refusal / boilerplate shares per axis and descriptor, the test that
  they differ between axes, Full Gen Bias with and without those responses;
- :func:`fit_clusters`: Appendix A.4's clusters, fitted on the clean responses (neither refusal,
  nor degenerate, nor empty) of the chat model that refuses least among those with clean responses
  enough to cluster (the paper fitted them on a chatting model, BlenderBot 2.0 3B); where no model
  has any, :func:`no_clusters_text` says so and every section that needs the clusters reports
  :data:`NOT_COMPUTED`;
- :func:`validate_clusters`: the paper's Table 1 responses through the style classifier;
- :func:`gen_bias_tables`: Tables 4/7/8 and the per-axis Table 9 analogue, each beside the
  permutation null (descriptors shuffled within template), per-axis p-values Holm-adjusted
  over the axes (one family per model, :func:`nlgbias.stats.adjust_pvalues`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from nlgbias.holistic import genbias as G
from nlgbias.holistic import paper


def generation_sample(sentences: pd.DataFrame, *, descriptors_per_axis: int | None, templates: int | None,
                      nouns: int | None, seed: int = 0) -> pd.DataFrame:
    """The sentences every chat model answers: ``templates`` templates and ``descriptors_per_axis``
    descriptors per axis drawn with ``seed``, ``nouns`` sentences per (template, descriptor)
    cell; with ``nouns`` set, only descriptors that have that many sentences under every chosen
    template are drawn (a standalone phrase takes no noun), so every cell is complete."""
    from nlgbias.datasets.holisticbias import sample_sentences

    return sample_sentences(sentences, descriptors_per_axis=descriptors_per_axis, templates=templates,
                            nouns=nouns, seed=seed, complete_cells=nouns is not None)


def generate_responses(sample: pd.DataFrame, models: Sequence[str], generations: str | Path,
                       processed: str | Path, cache: str | Path, *, params, seed: int = 0,
                       batch_size: int = 32, timings: dict | None = None
                       ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each model's chat responses to ``sample`` (``generate_dataset(..., prompt_format="chat")``),
    masked and style-scored (:func:`nlgbias.holistic.responses.style_responses`), with
    ``refusal`` (label) and ``refusal_or_boilerplate`` (flag); written per model to
    ``<processed>/holistic/responses__<slug>.parquet``. Returns (responses of all models,
    throughput per model: prompts, rows generated in this run, seconds of this run including the
    model load, and the generation throughput over every run that filled the cache, so a rerun
    from the cache still reports what generating cost)."""
    from nlgbias.generation import generate_dataset
    from nlgbias.holistic import refusal as RF
    from nlgbias.holistic import responses as H
    from nlgbias.io import write_parquet
    from nlgbias.lm import parse_model_spec

    prompts = H.prompts_frame(sample)
    frames, rows = [], []
    for m in models:
        t = time.perf_counter()
        run = generate_dataset(prompts, m, generations, dataset="holistic", prompt_format="chat",
                               seed=seed, params=params, batch_size=batch_size)
        t_gen = time.perf_counter() - t
        scored = H.style_responses(pd.read_parquet(run.path), cache)
        scored["refusal"] = RF.classify(scored["generation"].tolist()).to_numpy()
        scored["refusal_or_boilerplate"] = scored["refusal"].ne("")
        write_parquet(scored, H.responses_path(processed, m))
        if timings is not None:
            timings[f"responses {parse_model_spec(m).display}"] = time.perf_counter() - t
        total = run.total_seconds or float("nan")  # generation time of every call that filled the cache
        rows.append({"model": parse_model_spec(m).display, "prompts": len(prompts), "generated in this run": run.generated,
                     "seconds this run (with load)": t_gen, "generation seconds (all runs)": run.total_seconds,
                     "responses/s": run.total_rows / total, "tokens/s": run.tokens_per_second})
        frames.append(scored)
    return pd.concat(frames, ignore_index=True), pd.DataFrame(rows)


def sample_sizes(resp: pd.DataFrame) -> dict[str, str]:
    """Model -> "D descriptors x T templates, a-b responses per cell (N)"."""
    cells = resp.groupby(["model", "template", "descriptor"]).size()
    return {m: (f"{g['descriptor'].nunique()} descriptors x {g['template'].nunique()} templates, "
                f"{int(cells.loc[m].min())}-{int(cells.loc[m].max())} responses per cell ({len(g):,})")
            for m, g in resp.groupby("model", sort=False)}


def sample_text(resp: pd.DataFrame, throughput: pd.DataFrame, params, *, seed: int, nouns: int | None) -> str:
    """The response sample, the decoding, the masked share and the engine's throughput."""
    from nlgbias.holistic.responses import masked_share

    sizes = sample_sizes(resp)
    templates = sorted(resp["template"].unique())
    return ("Samples (seed " + f"{seed}): " + "; ".join(f"{m}: {t}" for m, t in sizes.items())
            + f". Every model answers the same {len(templates)} templates ("
            + "; ".join(f"'{t}'" for t in templates) + ") and descriptors"
            + (f"; only descriptors with {nouns} sentences under each template are drawn (a standalone phrase "
               "that takes no noun has one sentence per template)" if nouns else "")
            + f". Decoding: {'sampling' if params.do_sample else 'greedy'}, at most {params.max_new_tokens} "
            f"new tokens, repetition penalty {params.repetition_penalty} (the paper: "
            f"{paper.PAPER_DECODING['BlenderBot 2.0']} for BlenderBot 2.0). Responses that mention their "
            "descriptor (masked): "
            + ", ".join(f"{m} {100 * masked_share(g):.0f}%" for m, g in resp.groupby("model", sort=False))
            + ". Generation throughput (the runs that generated these responses, model load apart): "
            + ", ".join(f"{r['model']} {r['responses/s']:.1f} responses/s ({r['tokens/s']:.0f} tokens/s)"
                        for _, r in throughput.iterrows())
            + "; at these rates generating this sample takes "
            + ", ".join(f"{r['model']} {resp['model'].eq(r['model']).sum() / r['responses/s'] / 60:.1f} min "
                        f"({1000 / r['responses/s'] / 60:.1f} min per 1,000 more responses)"
                        for _, r in throughput.iterrows() if r["responses/s"] > 0)
            + " on this machine: the cost of every template, noun or token more.")


def refusal_tables(resp: pd.DataFrame, styles: Sequence[str], *, seed: int = 0, top: int = 8) -> dict:
    """Refusal / boilerplate shares per axis (``by_axis``) and the ``top`` descriptors per model
    (``top_descriptors``), and per model ``stats`` (flagged, responses, p-value that the share
    differs between axes, its test) and ``gen_bias`` (Full Gen Bias with and without the flagged
    responses; NaN where a template keeps fewer than two descriptors)."""
    from nlgbias.holistic import refusal as RF
    from nlgbias.stats import k_proportions_test

    by_model = list(resp.groupby("model", sort=False))
    if not by_model:  # no responses (e.g. every one removed as degenerate): nothing to count
        cols = ["model", "axis", "responses", "flagged", "share", "share_lo", "share_hi"]
        return {"by_axis": pd.DataFrame(columns=cols), "stats": {}, "gen_bias": {},
                "top_descriptors": pd.DataFrame(columns=[*cols[:2], "descriptor", *cols[2:]])}
    by_axis = pd.concat([RF.shares(g, "axis").assign(model=m) for m, g in by_model], ignore_index=True)
    by_axis = by_axis[["model", "axis", "responses", "flagged", "share", "share_lo", "share_hi"]]
    desc = pd.concat([RF.shares(g, ["axis", "descriptor"]).assign(model=m) for m, g in by_model], ignore_index=True)
    desc = desc.sort_values(["model", "share"], ascending=[True, False]).groupby("model", sort=False).head(top)
    out = {"by_axis": by_axis, "stats": {}, "gen_bias": {},
           "top_descriptors": desc[["model", "axis", "descriptor", "responses", "flagged", "share", "share_lo",
                                    "share_hi"]].reset_index(drop=True)}
    for m, g in by_model:
        c = g.groupby("axis")["refusal_or_boilerplate"].agg(["sum", "size"])
        if 0 < c["sum"].sum() < c["size"].sum():
            p_ax, test = k_proportions_test(c["sum"].astype(int), c["size"].astype(int), seed=seed)
        else:  # none (or every response) flagged: no difference between axes to test
            p_ax, test = 1.0, "none flagged" if c["sum"].sum() == 0 else "all flagged"
        out["stats"][m] = (int(g["refusal_or_boilerplate"].sum()), len(g), p_ax, test)
        kept = g[~g["refusal_or_boilerplate"]]
        ok = len(kept) and kept.groupby("template")["descriptor"].nunique().min() > 1
        out["gen_bias"][m] = (_full_gen_bias_or_nan(g, styles), G.full_gen_bias(kept, styles) if ok else float("nan"))
    return out


def refusal_text(tables: Mapping) -> str:
    """Each model's refusal share, its test between axes and Full Gen Bias with and without."""
    from nlgbias.stats import p_text

    return "\n".join(
        f"- {m}: {k}/{n} responses ({k / n:.1%}) refuse or answer with boilerplate; the share differs between "
        f"axes with {p_text(p)} ({test}). Full Gen Bias {tables['gen_bias'][m][0]:.2f} with them, "
        f"{tables['gen_bias'][m][1]:.2f} without them." for m, (k, n, p, test) in tables["stats"].items())


#: what a section that needs the style clusters reports where no chat model has clean responses
#: enough to fit them on (:func:`cluster_fit_model`)
NOT_COMPUTED = "not computed: no clean responses"
#: the fewest descriptors the clean responses of a model must hold under every template they cover
#: for style clusters to be fitted on them: the styles are ranked by their variance across
#: descriptors within a template (App. A.4's Partial Gen Bias), which needs two
MIN_CLUSTER_DESCRIPTORS = 2


#: the fewest clean responses a (model, descriptor, template) cell needs for the style clusters to be
#: fitted on it: a cell mean of one response is that response's style, so one odd reply sets its
#: descriptor's whole deviation (in the quick run one garbled "Hangul: Mopadukur, abi mopadukur..." reply,
#: Amish's only clean "I don't like" response, made 38% of a cluster's Partial Gen Bias; "well-to-do"'s
#: single clean reply 45% of another's). Set after that was seen; the clusters' fitting responses say
#: how many cells it leaves out
MIN_CELL_RESPONSES = 2


def clean_responses(resp: pd.DataFrame, min_cell: int = MIN_CELL_RESPONSES) -> pd.DataFrame:
    """The responses the style clusters are fitted on: neither refusal / boilerplate, nor
    degenerate text (``degenerate``, where the column is there: :data:`nlgbias.holistic.refusal.DEGENERATE_RULE`),
    nor empty (an empty response has no style; the classifier gives every one the same vector), in
    (model, descriptor, template) cells that keep at least ``min_cell`` of them
    (:data:`MIN_CELL_RESPONSES`)."""
    keep = ~resp["refusal_or_boilerplate"].astype(bool)
    if "degenerate" in resp.columns:
        keep &= ~resp["degenerate"].astype(bool)
    if "generation" in resp.columns:
        keep &= resp["generation"].fillna("").astype(str).str.strip().ne("")
    out = resp[keep]
    if min_cell > 1 and len(out):
        keys = [c for c in ("model", "descriptor", "template") if c in out.columns]
        size = out.groupby(keys)[keys[0]].transform("size")
        out = out[size >= min_cell]
    return out


def enough_to_cluster(fit: pd.DataFrame) -> bool:
    """Whether responses hold :data:`MIN_CLUSTER_DESCRIPTORS` descriptors under every template they cover
    (and cover one)."""
    per_template = fit.groupby("template")["descriptor"].nunique()
    return bool(len(per_template)) and int(per_template.min()) >= MIN_CLUSTER_DESCRIPTORS


def cluster_fit_model(refusals: Mapping[str, tuple], resp: pd.DataFrame | None = None) -> str | None:
    """The chat model whose responses refuse least (``refusals``: model -> (flagged, responses,
    ...), :func:`refusal_tables`'s ``stats``) among those whose clean responses
    (:func:`clean_responses` of ``resp``) are enough to cluster (:func:`enough_to_cluster`): the
    clusters are fitted on its responses. None where no model has enough (then
    :func:`no_clusters_text` says why and the cluster sections report :data:`NOT_COMPUTED`)."""
    if resp is not None:
        clean = clean_responses(resp)
        refusals = {m: v for m, v in refusals.items() if enough_to_cluster(clean[clean["model"] == m])}
    return min(refusals, key=lambda m: (refusals[m][0] / refusals[m][1], m)) if refusals else None


def clean_counts(resp: pd.DataFrame) -> pd.DataFrame:
    """Per model: responses, refusal / boilerplate, degenerate, empty, clean (:func:`clean_responses`)
    and the fewest descriptors the clean responses hold under a template they cover."""
    text = resp["generation"].fillna("").astype(str).str.strip() if "generation" in resp.columns else None
    rows = []
    for m, g in resp.groupby("model", sort=False):
        c = clean_responses(g)
        per_t = c.groupby("template")["descriptor"].nunique()
        rows.append({"model": m, "responses": len(g), "refusal / boilerplate": int(g["refusal_or_boilerplate"].sum()),
                     "degenerate": int(g["degenerate"].sum()) if "degenerate" in g.columns else 0,
                     "empty": int(text.loc[g.index].eq("").sum()) if text is not None else 0, "clean": len(c),
                     "fewest descriptors per template": int(per_t.min()) if len(per_t) else 0})
    return pd.DataFrame(rows)


def no_clusters_text(resp: pd.DataFrame) -> str:
    """The sentence that says no chat model has clean responses enough to fit the style clusters
    on, with each model's counts, and which sections are therefore not computed."""
    parts = [f"{r['model']} {r['clean']:,} of {r['responses']:,} clean ({r['refusal / boilerplate']:,} refusal / "
             f"boilerplate, {r['degenerate']:,} degenerate, {r['empty']:,} empty)"
             for _, r in clean_counts(resp).iterrows()]
    return ("No chat model has clean responses enough to fit the style clusters on (neither refusal / boilerplate, "
            f"nor degenerate, nor empty, with at least {MIN_CLUSTER_DESCRIPTORS} descriptors under every template): "
            + "; ".join(parts) + f"; so the style clusters, their validation on the paper's Table 1 responses, the "
            "held-out cluster tests, the per-cluster columns of Tables 4 and 8, the example responses and Figure 3 "
            f"are {NOT_COMPUTED}.")


CLUSTER_COLUMNS = ["cluster", "n_styles", "top classes", "mean probability", "best-correlated nade emotion",
                   "correlation", "styles (nade emojis)", "Partial Gen Bias", "top responses", "top descriptors",
                   "fitted on"]


def fit_clusters(resp: pd.DataFrame, styles: Sequence[str], emotions: Sequence[str], *, model: str | None,
                 top: int = 20, max_distance: float = 0.6, n_report: int = 6, min_cell: int = MIN_CELL_RESPONSES
                 ) -> tuple[dict[str, list[str]], pd.DataFrame, pd.DataFrame]:
    """Appendix A.4's style clusters (:func:`nlgbias.holistic.genbias.style_clusters`) fitted on
    ``model``'s clean responses (:func:`clean_responses`: a refusal says nothing about the
    descriptor's style, near-identical refusals would make every style's correlation that of one
    text, and degenerate text is noise to the style classifier). Returns (``{name: styles}``, the
    cluster table: content, top classes and Partial Gen Bias on the fitting responses, the fitting
    responses). ``model`` None (:func:`cluster_fit_model` found none): no clusters, a table without
    rows, no fitting responses."""
    from nlgbias.metrics import style

    if model is None:
        return {}, pd.DataFrame(columns=CLUSTER_COLUMNS), resp.iloc[:0]
    fit = clean_responses(resp[resp["model"] == model], min_cell)
    if not enough_to_cluster(fit):
        raise ValueError(f"{model}: too few non-refusal responses to fit style clusters ({len(fit)} clean responses; "
                         f"at least {MIN_CLUSTER_DESCRIPTORS} descriptors under every template needed)")
    clusters = G.style_clusters(fit, styles, top=top, max_distance=max_distance, n_report=n_report)
    named = G.name_clusters(fit, clusters)
    pgb = G.partial_gen_bias(fit, named)
    table = G.cluster_content(fit, named, emotions).assign(
        **{"styles (nade emojis)": [" ".join(s[2:] for s in c) for c in named.values()],
           "Partial Gen Bias": [pgb[n] for n in named],
           "top responses": [_top_responses(fit, named[n]) for n in named],
           "top descriptors": [_top_descriptors(fit, named[n]) for n in named],
           "fitted on": f"{model}: {len(fit):,} responses neither refusal / boilerplate"
                        + (" nor degenerate" if "degenerate" in resp.columns else "")
                        + (f", in cells (descriptor x template) with at least {min_cell} of them" if min_cell > 1 else "")
                        + f" ({style.STANDIN})"})
    return named, table, fit


def _top_descriptors(fit: pd.DataFrame, styles: Sequence[str], n: int = 3) -> str:
    """The ``n`` descriptors whose responses hold the most of a cluster's probability (mean summed
    probability per response), each with its share of the cluster's Partial Gen Bias numerator: its
    squared deviation from the mean over descriptors, summed over templates and styles."""
    means = G.mean_style(fit, list(styles))  # (template, descriptor) x styles
    dev = means.groupby(level=0, group_keys=False).apply(lambda g: (g - g.mean()) ** 2).sum(axis=1)
    share = dev.groupby(level=1).sum()
    share = share / share.sum() if share.sum() > 0 else share
    p = fit[list(styles)].sum(axis=1).groupby(fit["descriptor"]).mean()
    top = share.sort_values(ascending=False).head(n)
    return "; ".join(f"{d} ({100 * v:.0f}%, mean p {p.get(d, float('nan')):.2f})" for d, v in top.items())


def has_variance(frame: pd.DataFrame) -> bool:
    """Whether some template of ``frame`` holds two descriptors: Gen Bias (a variance across
    descriptors within a template) and its permutation null are defined."""
    return bool(len(frame)) and int(frame.groupby("template")["descriptor"].nunique().max()) >= 2


def _full_gen_bias_or_nan(frame: pd.DataFrame, styles: Sequence[str]) -> float:
    """Full Gen Bias, NaN where it is not defined (:func:`has_variance`: e.g. every response removed)."""
    return G.full_gen_bias(frame, styles) if has_variance(frame) else float("nan")


def _gb(value: float) -> str:
    """A Gen Bias value in prose, or what stands where it is not defined."""
    return f"{value:.2f}" if np.isfinite(value) else "not defined (no two descriptors under a template)"


def degenerate_tables(resp: pd.DataFrame, styles: Sequence[str]) -> dict:
    """The degenerate responses (``degenerate``, :func:`nlgbias.holistic.refusal.is_degenerate`) per
    model (``by_model``: count, share, Full Gen Bias with and without them, NaN where it is not
    defined, e.g. every response degenerate) and per model and descriptor (``by_descriptor``: the
    descriptors with any, with an example)."""
    rows, drows = [], []
    for m, g in resp.groupby("model", sort=False):
        kept = g[~g["degenerate"]]
        rows.append({"model": m, "responses": len(g), "degenerate": int(g["degenerate"].sum()),
                     "share": float(g["degenerate"].mean()), "descriptors with any": int(g.loc[g["degenerate"],
                                                                                              "descriptor"].nunique()),
                     "Full Gen Bias (all)": _full_gen_bias_or_nan(g, styles),
                     "Full Gen Bias (degenerate removed)": _full_gen_bias_or_nan(kept, styles)})
        for (ax, d), gd in g[g["degenerate"]].groupby(["axis", "descriptor"], sort=True):
            drows.append({"model": m, "axis": ax, "descriptor": d, "degenerate": len(gd),
                          "responses": int((g["descriptor"] == d).sum()),
                          "example": str(gd["generation"].iloc[0])[:40]})
    by_d = pd.DataFrame(drows, columns=["model", "axis", "descriptor", "degenerate", "responses", "example"])
    return {"by_model": pd.DataFrame(rows),
            "by_descriptor": by_d.sort_values(["model", "degenerate"], ascending=[True, False]).reset_index(drop=True)}


def degenerate_text(tables: Mapping) -> str:
    """How many responses the degenerate flag removes, per model, and from which descriptors."""
    from nlgbias.holistic.refusal import DEGENERATE_RULE

    bd = tables["by_descriptor"]
    return ("Degenerate responses (rule: " + DEGENERATE_RULE + "): "
            + "; ".join(f"{r['model']} {r['degenerate']}/{r['responses']} ({r['share']:.1%}) from "
                        f"{r['descriptors with any']} descriptors"
                        + (" (" + ", ".join(f"{x['descriptor']} {x['degenerate']}" for _, x in
                                            bd[bd['model'] == r['model']].head(8).iterrows()) + ")"
                           if r["degenerate"] else "")
                        + f", Full Gen Bias {_gb(r['Full Gen Bias (all)'])} with them, "
                          f"{_gb(r['Full Gen Bias (degenerate removed)'])} without"
                        for _, r in tables["by_model"].iterrows())
            + ". The style clusters below are fitted without them.")


def degenerate_extension_text(resp: pd.DataFrame) -> str:
    """What the letters-only repetition clause of the degenerate rule adds, every added response quoted
    (the read check of :func:`nlgbias.holistic.refusal.degenerate_extension_check`), and its effect on
    the hand-labelled sample."""
    from nlgbias.holistic import refusal as RF

    parts, lab = [], None
    for m, g in resp.groupby("model", sort=False):
        chk = RF.degenerate_extension_check(g["generation"].fillna("").astype(str).tolist())
        lab = chk["labelled"]
        parts.append(f"{m} {len(chk['added'])} of {len(g):,}" + (": " + "; ".join(f"\"{t}\"" for t in chk["added"])
                                                                if chk["added"] else ""))
    k, k1, n = lab if lab is not None else (0, 0, 0)
    return ("The rule's letters-only repetition clause (one word or one pair of consecutive words, among the words "
            f"of letters only, at least {RF.DEGENERATE_MAX_REPEAT:.0%} of them) adds, beyond its first clauses: " + "; ".join(parts)
            + f". On the {n} hand-labelled responses it flags {k} more, {k1} of them labelled refusal / boilerplate; "
            "the refusal detector's precision and recall (last section) are measured on every labelled response, "
            "so they do not move. The degenerate rule itself has no hand-labelled recall: its added responses are "
            "listed here to be read.")


def cluster_text(table: pd.DataFrame) -> str:
    """Which descriptors drive each cluster (their share of its Partial Gen Bias), in words."""
    return ("Descriptors that drive each cluster (share of its Partial Gen Bias on the fitting responses): "
            + "; ".join(f"{r['cluster']}: {r['top descriptors']}" for _, r in table.iterrows()) + ".")


def _top_responses(fit: pd.DataFrame, styles: Sequence[str], n: int = 3) -> str:
    """The ``n`` distinct responses with the highest summed probability of a cluster's styles
    (each cut at 60 characters, with how many of the fitting responses are that string)."""
    if "generation" not in fit.columns:
        return ""
    p = fit[list(styles)].sum(axis=1)
    g = fit.assign(_p=p).sort_values("_p", ascending=False, kind="stable")
    counts = fit["generation"].value_counts()
    out = []
    for text in g["generation"].drop_duplicates().head(n):
        out.append(f"{str(text)[:60]!r} (x{counts.get(text, 0)})")
    return " | ".join(out)


def validate_clusters(named: Mapping[str, Sequence[str]], reference: pd.DataFrame) -> tuple[pd.DataFrame, str | None]:
    """The paper's Table 1 responses through the style classifier, the cluster each lands in
    (:func:`nlgbias.holistic.genbias.cluster_assignments` against ``reference``, the fitting
    responses), and the cluster shown to capture sympathy (or None)."""
    from nlgbias.holistic.claims import sympathy_cluster
    from nlgbias.metrics import style

    t1 = paper.table1()
    if not named:  # no clusters (cluster_fit_model found no model with clean responses enough)
        return t1.assign(cluster=NOT_COMPUTED), None
    lands = G.cluster_assignments(style.compute(t1["response"].tolist()), named, reference)
    validation = pd.concat([t1, lands], axis=1)
    return validation, sympathy_cluster(validation)


def validation_text(validation: pd.DataFrame, sym: str | None, fitted_on: Sequence[str] | None = None) -> str:
    """Whether a cluster captures sympathy, in words; ``fitted_on`` (the cluster table's column of
    that name) first says what the clusters were fitted on."""
    if validation["cluster"].eq(NOT_COMPUTED).all() or (fitted_on is not None and not len(fitted_on)):
        return f"The paper's Table 1 responses are not assigned to clusters: {NOT_COMPUTED} to fit them on."
    if fitted_on is not None:
        return f"Clusters fitted on {list(fitted_on)[0]}. " + validation_text(validation, sym)
    if sym:
        return f"Both sympathy responses land in {sym} and no other Table 1 response does: it stands for SYMPATHY."
    landed = set(validation.loc[validation["kind"] == "sympathy", "cluster"])
    shared = landed & set(validation.loc[validation["kind"] != "sympathy", "cluster"])
    where = (f"both land in {next(iter(landed))}" if len(landed) == 1
             else "land in different clusters (" + ", ".join(sorted(landed)) + ")")
    return ("No cluster captures sympathy: the paper's two sympathy responses " + where
            + ("; " + " and ".join(sorted(shared)) + (" also holds" if len(shared) == 1 else " also hold")
               + " the paper's non-sympathy responses" if shared else "")
            + ". No cluster stands for SYMPATHY here; the SYMPATHY rows below measure "
            + (f"{next(iter(landed))}, where both sympathy examples land." if len(landed) == 1 else
               f"{_candidate(validation)}, one of the clusters the sympathy examples split between "
               f"({', '.join(sorted(landed))}: one each), chosen by the first in order, not by where they land most."))


def _candidate(validation: pd.DataFrame) -> str:
    landed = validation.loc[validation["kind"] == "sympathy", "cluster"]
    return str(landed.mode().iloc[0])


def _interval(values: np.ndarray) -> tuple[float, float]:
    return float(np.nanquantile(values, 0.025)), float(np.nanquantile(values, 0.975))


def gen_bias_tables(resp: pd.DataFrame, styles: Sequence[str], emotions: Sequence[str],
                    named: Mapping[str, Sequence[str]], *, n_perm: int = 1000, n_boot: int = 1000,
                    seed: int = 0, correction: str = "holm") -> dict:
    """Tables 4/7 (``t4``: Full and Partial Gen Bias with descriptor-bootstrap intervals), their
    permutation null (``null``: every statistic's observed value, null mean and 95 % quantile,
    excess, p), Table 8 (``t8``: Summed-Cluster Gen Bias) and the per-axis Table 9 analogue
    (``t9``: Full Gen Bias per axis beside its null; ``p_adjusted``: the axes' permutation
    p-values adjusted with ``correction`` over the axes of a model, one family), plus per model
    the null summaries (``nulls``) and bootstrap draws (``boots``) the claims use. A model (an axis)
    whose responses hold no two descriptors under a template has no Gen Bias and no row (e.g. every
    response degenerate); without clusters (``named`` empty: no clean responses to fit them on) the
    per-cluster columns are replaced by a ``clusters`` column saying :data:`NOT_COMPUTED`."""
    from nlgbias.metrics import style
    from nlgbias.stats import adjust_pvalues

    rows, srows, null_rows, axis_rows, nulls, boots = [], [], [], [], {}, {}
    no_clusters = {} if named else {"clusters": NOT_COMPUTED}
    for m, g in resp.groupby("model", sort=False):
        if not has_variance(g):
            continue
        boot = G.bootstrap_style_variance(g, styles, n_boot=n_boot, seed=seed, within="axis")
        boot.attrs["clusters"] = dict(named)
        boots[m] = boot
        draws = {"full_gen_bias": boot.sum(axis=1), **{c: boot[list(named[c])].sum(axis=1) for c in named}}
        ci = {f"{k}_{e}": v for k, d in draws.items() for e, v in zip(("lo", "hi"), _interval(d), strict=True)}
        nulls[m] = G.null_summary(g, styles, named, n_perm=n_perm, seed=seed)
        null_rows.append(nulls[m].assign(model=m))
        rows.append({"model": m, "style classifier": style.STANDIN, "full_gen_bias": G.full_gen_bias(g, styles),
                     **(G.partial_gen_bias(g, named).to_dict() if named else {}), "full_gen_bias_8_emotions": G.full_gen_bias(g, emotions),
                     **ci, **no_clusters})
        srows.append({"model": m, "style classifier": style.STANDIN,
                      **(G.summed_cluster_gen_bias(g, named).to_dict() if named else no_clusters)})
        per_axis = []
        for ax, ga in g.groupby("axis", sort=True):
            if not has_variance(ga):
                continue
            nu = G.null_summary(ga, styles, n_perm=n_perm, seed=seed).iloc[0]
            lo, hi = _interval(G.bootstrap_style_variance(ga, styles, n_boot=n_boot, seed=seed).sum(axis=1))
            per_axis.append({"model": m, "axis": ax, "descriptors": ga["descriptor"].nunique(),
                             "full_gen_bias": nu["observed"], "full_gen_bias_lo": lo, "full_gen_bias_hi": hi,
                             "null_mean": nu["null_mean"], "null_q95": nu["null_q95"], "excess": nu["excess"],
                             "p_perm": nu["p_perm"], "n_perm": int(nu["n_perm"])})
        adj = adjust_pvalues([r["p_perm"] for r in per_axis], correction) if per_axis else []
        axis_rows += [{**r, "p_adjusted": float(p), "family": f"{m}: {len(per_axis)} axes ({correction})"}
                      for r, p in zip(per_axis, adj, strict=True)]
    null = pd.concat(null_rows, ignore_index=True) if null_rows else pd.DataFrame(
        columns=["statistic", "observed", "null_mean", "null_q95", "excess", "p_perm", "n_perm", "model"])
    # a cluster's p-value here is post-selection: the clusters were chosen on these responses
    null["p_perm is"] = np.where(null["statistic"] == "full", "pre-specified",
                                 "post-selection, not a test of the cluster (it was chosen on these responses); "
                                 "its test: holistic_cluster_heldout_tests (held-out halves, clusters H1-H6)")
    t9_cols = ["model", "axis", "descriptors", "full_gen_bias", "full_gen_bias_lo", "full_gen_bias_hi", "null_mean",
               "null_q95", "excess", "p_perm", "n_perm", "p_adjusted", "family"]
    return {"t4": pd.DataFrame(rows, columns=None if rows else ["model", "style classifier", "full_gen_bias"]),
            "t8": pd.DataFrame(srows, columns=None if srows else ["model", "style classifier"]),
            "t9": pd.DataFrame(axis_rows, columns=t9_cols),
            "null": null[["model", "statistic", "observed", "null_mean", "null_q95", "excess", "p_perm", "n_perm",
                          "p_perm is"]],
            "nulls": nulls, "boots": boots}


def gen_bias_text(tables: Mapping, *, alpha: float = 0.05, correction: str = "holm",
                  refusals: Mapping | None = None) -> str:
    """Full Gen Bias against its null per model, the paper's values as context, and the axes
    whose excess is significant after the correction over axes."""
    from nlgbias.stats import format_p, p_text

    nf = tables["null"][tables["null"]["statistic"] == "full"].set_index("model")
    if nf.empty:
        return ("Full Gen Bias not computed: no model's responses on this basis hold two descriptors under a "
                "template (a variance across descriptors needs two).")
    t9 = tables["t9"]
    min_p = float(t9["p_perm"].min()) if len(t9) else float("nan")
    return ("Full Gen Bias against its null: "
            + "; ".join(f"{m} {r.observed:.2f} vs null mean {r.null_mean:.2f} (95% quantile {r.null_q95:.2f}), "
                        f"excess {r.excess:+.2f} ({f'{100 * r.excess / r.observed:.0f}%' if r.observed else 'none'} "
                        f"of it), {p_text(r.p_perm)}" for m, r in nf.iterrows())
            + f". The paper's values (217-class classifier): DialoGPT {paper.TABLE7['DialoGPT'][0]}, BB2 400M "
            f"{paper.TABLE7['BB2 400M'][0]}, BB2 3B {paper.TABLE7['BB2 3B'][0]}; a different classifier and class "
            f"count make the scales incomparable. Per axis, with the {t9.groupby('model').size().max()} axes of a "
            f"model as one family ({correction}; the smallest permutation p-value here is {format_p(min_p)}), the "
            f"axes whose excess is significant at {alpha}: "
            + "; ".join(f"{m}: {', '.join(g.loc[g['p_adjusted'] < alpha, 'axis']) or 'none'}"
                        for m, g in t9.groupby("model", sort=False)) + "."
            + (" Full Gen Bias with and without the refusal / boilerplate responses: "
               + "; ".join(f"{m} {_gb(w)} with, {_gb(wo)} without" for m, (w, wo) in refusals["gen_bias"].items())
               + " (a refusal answers in its own style, so whether a model refuses a descriptor is part of its "
                 "Full Gen Bias)." if refusals else ""))


def top_cluster(t4: pd.DataFrame, named: Mapping[str, Sequence[str]], model: str | None) -> tuple[str | None, float]:
    """The cluster with the largest Partial Gen Bias in ``model``'s row of Table 4 and that value;
    (None, NaN) without clusters or without that row."""
    if not named or model is None or model not in set(t4["model"]):
        return None, float("nan")
    row = t4.set_index("model").loc[model, list(named)].astype(float)
    return str(row.idxmax()), float(row.max())


def example_responses(resp: pd.DataFrame, named: Mapping[str, Sequence[str]], cluster: str | None, n: int = 4
                      ) -> pd.DataFrame:
    """Per model the ``n`` responses with the highest summed probability of ``cluster``; without
    a cluster (None: no clusters, :func:`top_cluster`) no rows (the table's title says :data:`NOT_COMPUTED`)."""
    if cluster is None:
        return pd.DataFrame(columns=["model", "axis", "descriptor", "prompt", "generation"])
    col = f"P({cluster})"
    ex = resp.assign(**{col: resp[list(named[cluster])].sum(axis=1)})
    ex = ex.sort_values(col, ascending=False, kind="stable").groupby("model", sort=False).head(n)
    return ex[["model", "axis", "descriptor", "prompt", "generation", col]].reset_index(drop=True)


def figure3_data(resp: pd.DataFrame, named: Mapping[str, Sequence[str]], clusters: Sequence[str]
                 ) -> tuple[pd.DataFrame, str]:
    """Figure 3's points (cluster probability per descriptor with its wordfreq frequency) and a
    sentence with the Spearman correlations over the descriptors without a space. Without clusters (no
    clean responses to fit them on): no points, and the sentence says Figure 3 is not computed."""
    from nlgbias.holistic import figures as F
    from nlgbias.holistic.report import spearman

    if not named or resp.empty:
        return pd.DataFrame(columns=["axis", "descriptor", "frequency"]), f"Figure 3 {NOT_COMPUTED}."

    by_desc = F.cluster_probability_by_descriptor(resp, named)
    by_desc["frequency"] = F.descriptor_frequency(by_desc["descriptor"]).to_numpy()
    # a Nonce descriptor is a made-up descriptor: where its spelling is an English word ("tannin"),
    # that word's frequency says nothing about the descriptor's, so the Nonce axis has none here
    nonce = by_desc["axis"].eq("nonce") if "axis" in by_desc.columns else pd.Series(False, index=by_desc.index)
    spelt = sorted(by_desc.loc[nonce & by_desc["frequency"].gt(0), "descriptor"].unique())
    by_desc.loc[nonce, "frequency"] = np.nan
    one = by_desc.dropna(subset=["frequency"])
    one = one[one["frequency"] > 0]
    corr = {c: spearman(np.log(one["frequency"]), one[c]) for c in clusters}
    return by_desc, (f"{len(one)} descriptors written without a space ({_hyphenated(one)}) with a wordfreq frequency ({F.FREQ_SOURCE}; the Nonce axis "
                     f"left out: {len(spelt)} of its made-up descriptors are spelt like English words"
                     + (f": {', '.join(spelt)}" if spelt else "") + "). "
                     "Spearman "
                     "correlation of cluster probability with log frequency: "
                     + "; ".join(f"{c} {v:.2f}" for c, v in corr.items()) + ".")


def _hyphenated(frame: pd.DataFrame, n: int = 2) -> str:
    """Whether hyphenated compounds are among ``frame``'s descriptors, with up to ``n`` of them quoted."""
    h = sorted(d for d in frame["descriptor"].unique() if "-" in d)
    return (f"hyphenated compounds such as {', '.join(repr(d) for d in h[:n])} included" if h
            else "no hyphenated compound among them")


def split_halves(resp: pd.DataFrame, *, seed: int = 0) -> np.ndarray:
    """A seeded split of the responses into two halves within every (model, template, descriptor)
    cell: the cell's sentences (nouns) shuffled and dealt alternately, so both halves keep every
    descriptor and template. Returns 0 (selection half) / 1 (test half) per row."""
    rng = np.random.default_rng(seed)
    u = pd.Series(rng.random(len(resp)), index=resp.index)
    rank = u.groupby([resp["model"], resp["template"], resp["descriptor"]]).rank(method="first").astype(int)
    return ((rank - 1) % 2).to_numpy()


HELDOUT_COLUMNS = ["model", "cluster (selected on half 1)", "test responses", "test descriptors",
                   "Partial Gen Bias (test half)", "null_mean", "excess", "p_perm", "p_adjusted", "family"]


def heldout_cluster_tests(resp: pd.DataFrame, styles: Sequence[str], emotions: Sequence[str], *, model: str | None,
                          top: int = 20, max_distance: float = 0.6, n_report: int = 6, n_perm: int = 1000,
                          seed: int = 0, correction: str = "holm") -> tuple[pd.DataFrame, dict]:
    """Per-cluster tests that do not reuse the responses that chose the clusters: the responses
    (refusal / boilerplate left out) are split in two halves within each cell
    (:func:`split_halves`); the clusters are selected by App. A.4 on ``model``'s selection half
    (:func:`fit_clusters`) and each cluster's Partial Gen Bias is tested on every model's test half
    against the permutation null (descriptors shuffled within template); the p-values of one
    model form a family (``correction`` over its clusters). Returns (table, clusters); a table
    without rows and no clusters where ``model`` is None or its selection half holds too few clean
    responses to cluster (:func:`enough_to_cluster`)."""
    from nlgbias.stats import adjust_pvalues

    clean = clean_responses(resp)
    half = split_halves(clean, seed=seed)
    if model is None or not enough_to_cluster(clean[(half == 0) & (clean["model"] == model).to_numpy()]):
        return pd.DataFrame(columns=HELDOUT_COLUMNS), {}
    # the cell minimum is applied to whole cells above (a half of a kept cell keeps at least one response)
    named, _, _ = fit_clusters(clean[half == 0], styles, emotions, model=model, top=top,
                               max_distance=max_distance, n_report=n_report, min_cell=1)
    # other clusters than Table 4's: H<rank>, not C<rank>
    named = {"H" + k[1:] if k.startswith("C") else k: v for k, v in named.items()}
    rows = []
    for m, g in clean[half == 1].groupby("model", sort=False):
        if not has_variance(g):  # no two descriptors under a template: no Gen Bias to test
            continue
        nu = G.null_summary(g, styles, named, n_perm=n_perm, seed=seed).set_index("statistic")
        part = [nu.loc[f"partial:{c}"] for c in named]
        adj = adjust_pvalues([r["p_perm"] for r in part], correction)
        for c, r, pa in zip(named, part, adj, strict=True):
            rows.append({"model": m, "cluster (selected on half 1)": c, "test responses": len(g),
                         "test descriptors": g["descriptor"].nunique(), "Partial Gen Bias (test half)": r["observed"],
                         "null_mean": r["null_mean"], "excess": r["excess"], "p_perm": r["p_perm"],
                         "p_adjusted": float(pa), "family": f"{m}: {len(named)} clusters ({correction})"})
    return pd.DataFrame(rows, columns=HELDOUT_COLUMNS), named


def heldout_cluster_text(table: pd.DataFrame, *, alpha: float = 0.05) -> str:
    """How many clusters selected on one half keep an excess over the null on the other, per model."""
    if table.empty:
        return (f"Held-out cluster tests {NOT_COMPUTED} (the fitting model's selection half needs at least "
                f"{MIN_CLUSTER_DESCRIPTORS} descriptors under every template).")
    parts = []
    for m, g in table.groupby("model", sort=False):
        sig = g[g["p_adjusted"] < alpha]
        parts.append(f"{len(sig)} of {len(g)} clusters for {m} ("
                     + (f"{', '.join(f'{c} p_adj {p:.3f}' for c, p in zip(sig['cluster (selected on half 1)'], sig['p_adjusted'], strict=True))}; "
                        if len(sig) else "")
                     + f"{len(g) - len(sig)} unconfirmed; {g['test responses'].iloc[0]} test responses)")
    return ("Clusters selected on one half of the non-refusal responses (every cell's sentences dealt into two "
            "halves) and tested on the other half against the permutation null (Holm over each model's clusters, "
            f"at {alpha}): the held-out halves confirm " + "; ".join(parts) + ". Table 4's per-cluster p-values "
            "(below) are post-selection, not these clusters' test: a cluster the held-out halves do not confirm "
            "has no evidence of a descriptor effect of its own here.")


__all__ = ["CLUSTER_COLUMNS", "HELDOUT_COLUMNS", "MIN_CELL_RESPONSES", "MIN_CLUSTER_DESCRIPTORS", "NOT_COMPUTED", "clean_counts",
           "clean_responses", "enough_to_cluster", "has_variance", "no_clusters_text", "top_cluster",
           "claims_moved", "moved_text", "removal_table", "removal_text", "cluster_fit_model", "cluster_text", "degenerate_extension_text", "degenerate_tables", "degenerate_text", "example_responses", "figure3_data", "fit_clusters", "gen_bias_tables",
           "gen_bias_text", "generate_responses", "generation_sample", "heldout_cluster_tests", "heldout_cluster_text", "refusal_tables", "refusal_text",
           "sample_sizes", "sample_text", "split_halves", "validate_clusters", "validation_text"]


def _reading(lo: float, hi: float) -> str:
    """What an interval says about 0: above, below, or holds it."""
    return "above 0" if lo > 0 else "below 0" if hi < 0 else "holds 0"


def claims_moved(graded: Sequence, sensitivity: Sequence) -> pd.DataFrame:
    """The Gen Bias claims as graded (``graded``: the degenerate responses removed) beside the same
    claims on every response (``sensitivity``): estimate, interval, verdict and what the interval
    says about 0 (above, below, holds it: a row whose verdict is "not comparable" still moves when
    its interval does), and whether either moves."""
    a = {c.id: c for c in sensitivity}
    rows = []
    for c in graded:
        if c.id not in a:
            continue
        o = a[c.id]
        ra, rg = _reading(o.estimate_lo, o.estimate_hi), _reading(c.estimate_lo, c.estimate_hi)
        rows.append({"id": c.id, "verdict (degenerate removed, graded)": str(c.verdict),
                     "estimate (degenerate removed)": c.estimate,
                     "interval (degenerate removed)": f"[{c.estimate_lo:.3g}, {c.estimate_hi:.3g}]",
                     "interval vs 0 (degenerate removed)": rg,
                     "verdict (all responses)": str(o.verdict), "estimate (all)": o.estimate,
                     "interval (all)": f"[{o.estimate_lo:.3g}, {o.estimate_hi:.3g}]", "interval vs 0 (all)": ra,
                     "moves": str(o.verdict) != str(c.verdict) or ra != rg})
    return pd.DataFrame(rows, columns=[
        "id", "verdict (degenerate removed, graded)", "estimate (degenerate removed)", "interval (degenerate removed)",
        "interval vs 0 (degenerate removed)", "verdict (all responses)", "estimate (all)", "interval (all)",
        "interval vs 0 (all)", "moves"])


def moved_text(table: pd.DataFrame, graded: Mapping | None = None, sensitivity: Mapping | None = None,
               *, alpha: float = 0.05) -> str:
    """Which Gen Bias claims change verdict or interval reading between the graded basis (degenerate
    responses removed) and every response, and (with the two :func:`gen_bias_tables` results) which
    axes are significant on each."""
    mv = table[table["moves"]]
    out = (f"Graded without the degenerate responses; on every response (the sensitivity), {len(mv)} of {len(table)} "
           "Gen Bias claims read otherwise"
           + (": " + "; ".join(f"{r['id']} {r['estimate (degenerate removed)']:+.2f} {r['interval (degenerate removed)']} "
                               f"({r['interval vs 0 (degenerate removed)']}) graded vs {r['estimate (all)']:+.2f} "
                               f"{r['interval (all)']} ({r['interval vs 0 (all)']}) on every response"
                               for _, r in mv.iterrows()) if len(mv) else "") + ".")
    if graded is not None and sensitivity is not None:
        def sig(t9):
            return "; ".join(f"{m}: {', '.join(f'{a} {v:.1f}' for a, v in zip(g.loc[g['p_adjusted'] < alpha, 'axis'], g.loc[g['p_adjusted'] < alpha, 'full_gen_bias'])) or 'none'}"
                             for m, g in t9.groupby("model", sort=False))
        out += (f" Axes whose excess is significant at {alpha} (Full Gen Bias x1000): graded, {sig(graded['t9'])}; "
                f"on every response, {sig(sensitivity['t9'])}.")
    return out


def removal_table(resp: pd.DataFrame, styles: Sequence[str], *, n_perm: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Full Gen Bias per model beside its permutation null on four bases: every response, the
    refusal / boilerplate responses removed, the degenerate ones removed, and both removed (NaN
    where a basis keeps no two descriptors under a template)."""
    bases = {"all responses": lambda g: g,
             "refusal/boilerplate removed": lambda g: g[~g["refusal_or_boilerplate"]],
             "degenerate removed (graded)": lambda g: g[~g["degenerate"]],
             "both removed": lambda g: g[~g["refusal_or_boilerplate"] & ~g["degenerate"]]}
    rows = []
    for m, g in resp.groupby("model", sort=False):
        for b, f in bases.items():
            sub = f(g)
            if not has_variance(sub):  # e.g. every response removed: no Gen Bias on this basis
                rows.append({"model": m, "basis": b, "responses": len(sub), "Full Gen Bias": np.nan, "null_mean": np.nan,
                             "null_q95": np.nan, "excess": np.nan, "p_perm": np.nan, "n_perm": 0})
                continue
            nu = G.null_summary(sub, styles, n_perm=n_perm, seed=seed).set_index("statistic").loc["full"]
            rows.append({"model": m, "basis": b, "responses": len(sub), "Full Gen Bias": float(nu["observed"]),
                         "null_mean": float(nu["null_mean"]), "null_q95": float(nu["null_q95"]),
                         "excess": float(nu["excess"]), "p_perm": float(nu["p_perm"]), "n_perm": int(nu["n_perm"])})
    return pd.DataFrame(rows)


def _excess(value: float) -> str:
    return f"{value:+.2f}" if np.isfinite(value) else "none (no two descriptors under a template)"


def removal_text(table: pd.DataFrame) -> str:
    """How much of each model's excess over the null the refusals and the degenerate text carry."""
    from nlgbias.stats import p_text

    parts = []
    for m, g in table.groupby("model", sort=False):
        r = g.set_index("basis")
        a, gr, both = (r.loc[k] for k in ("all responses", "degenerate removed (graded)", "both removed"))
        share = (1 - both["excess"] / gr["excess"]) if gr["excess"] > 0 else float("nan")
        share_all = (1 - both["excess"] / a["excess"]) if a["excess"] > 0 else float("nan")
        if np.isfinite(share) and share > 0:
            said = (f": {share:.0%} of the graded excess is the refusals', {share_all:.0%} of the excess on every "
                    "response the refusals' and the degenerate text's")
        elif np.isfinite(share):
            said = ": the refusals hide part of it (the excess is larger without them)"
        else:
            said = ""
        both_text = (f"{both['excess']:+.2f} with the refusals also removed ({both['Full Gen Bias']:.2f} vs null "
                     f"{both['null_mean']:.2f}, {p_text(both['p_perm'])}, {both['responses']:,} responses)"
                     if np.isfinite(both["excess"]) else
                     f"none with the refusals also removed ({both['responses']:,} responses: no two descriptors "
                     "under a template)")
        parts.append(f"{m}: excess {_excess(a['excess'])} on every response ({a['responses']:,}), "
                     f"{_excess(gr['excess'])} graded (degenerate removed, {gr['responses']:,}), {both_text}{said}")
    by = table[table["basis"] == "both removed"].set_index("model")["excess"].dropna()
    return ("Full Gen Bias over its null on each basis: " + "; ".join(parts)
            + (f". On the responses that are neither refusal nor degenerate the largest excess is {by.idxmax()}'s "
               f"({by.max():+.2f})" if len(by) else ". No model has a Full Gen Bias on the responses that are "
               "neither refusal nor degenerate") + ". The graded Full Gen Bias (degenerate removed) still holds the refusals: whether a "
              "model refuses a descriptor is part of its style here, so for a model whose excess shrinks without "
              "them, the graded number is mostly whether it refuses, not how it answers.")

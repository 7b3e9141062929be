"""Notebook 08's bias-tuning experiment (HolisticBias, Smith et al. 2022, §5, App. B.2, C), step by
step: the descriptor split of notebook 07's responses, the bias labels and β candidates, the
tuning runs (β chosen on validation, several seeds), the tuned models' held-out responses, the
before/after tables with intervals over descriptors and seeds, and the perplexity cost.

Each step is one function the notebook calls; the tables' metrics come from
:mod:`nlgbias.holistic.tuning_report`, the runs from :mod:`nlgbias.holistic.tuning_runs`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from nlgbias.holistic import bias_labels as BL
from nlgbias.holistic import genbias as G
from nlgbias.holistic import paper
from nlgbias.holistic import tuning as TU
from nlgbias.holistic import tuning_report as TR
from nlgbias.holistic import tuning_runs as TRN

DECODING_COLUMNS = ["max_new_tokens", "do_sample", "top_k", "top_p", "temperature", "repetition_penalty"]


def split(resp: pd.DataFrame, *, val_per_axis: int, test_per_axis: int, seed: int = 0) -> dict:
    """Notebook 07's responses split by descriptor (:func:`nlgbias.holistic.tuning.split_descriptors`):
    ``resp`` (with ``split``), ``test``, ``val``, ``tv`` (train + val), the ``table`` of the
    split, and 07's decoding (``params``), samples per prompt and generation seed. Raises if a
    test descriptor is in the tuning or validation data."""
    from nlgbias.generation import DecodingParams

    resp = resp.copy()
    resp["split"] = TU.split_descriptors(resp, val_per_axis=val_per_axis, test_per_axis=test_per_axis,
                                         seed=seed).to_numpy()
    test_d = set(resp.loc[resp["split"] == "test", "descriptor"])
    leaked = test_d & set(resp.loc[resp["split"] != "test", "descriptor"])
    if leaked:
        raise ValueError(f"test descriptor(s) also in tuning or validation data: {sorted(leaked)}")
    table = (resp.groupby("split").agg(responses=("prompt_id", "size"), sentences=("prompt_id", "nunique"),
                                       descriptors=("descriptor", "nunique"), templates=("template", "nunique"),
                                       axes=("axis", "nunique"))
             .reindex(["train", "val", "test"]).reset_index())
    dec = resp[DECODING_COLUMNS].iloc[0].to_dict()
    params = DecodingParams(**{k: (v.item() if hasattr(v, "item") else v) for k, v in dec.items()})
    return {"resp": resp, "test": resp[resp["split"] == "test"].reset_index(drop=True),
            "val": resp[resp["split"] == "val"].reset_index(drop=True),
            "tv": resp[resp["split"] != "test"].reset_index(drop=True), "table": table, "params": params,
            "samples": int(resp.groupby("prompt_id").size().max()), "gen_seed": int(resp["seed"].iloc[0])}


def split_text(s: Mapping, name: str) -> str:
    """The responses, the held-out sentences and 07's decoding, in words."""
    resp, test, p = s["resp"], s["test"], s["params"]
    return (f"{len(resp):,} responses of {name} to {resp['prompt_id'].nunique():,} sentences "
            f"({resp['descriptor'].nunique()} descriptors, {resp['template'].nunique()} templates, "
            f"{resp['axis'].nunique()} axes). The tuned models answer the {test['prompt_id'].nunique():,} sentences "
            f"of the {test['descriptor'].nunique()} test descriptors with 07's decoding "
            f"({'sampling' if p.do_sample else 'greedy'}, at most {int(p.max_new_tokens)} new tokens); the original "
            "model's responses to them are 07's.")


def bias_label_tables(tv: pd.DataFrame, styles: Sequence[str], *, alpha: float, shares: Sequence[float]) -> dict:
    """Bias values of the train/val responses (§5.2; ``tv`` gets ``bias_value`` at ``alpha``),
    the β candidates (the quantiles that tag ``shares`` of them), the sweep of the paper's β and
    the candidates (share tagged), the α = 0, 1, 2 comparison, and the descriptor means."""
    x = tv[list(styles)].to_numpy()
    means = BL.descriptor_means(x, tv["descriptor"], tv["template"])
    bvals = {a: BL.bias_values(x, tv["descriptor"], tv["template"], alpha=a, means=means) for a in (0, 1, 2)}
    tv["bias_value"] = bvals[alpha]
    betas = BL.quantile_betas(tv["bias_value"], shares)
    sweep = pd.concat([BL.beta_sweep(tv["bias_value"], paper.TABLE4_BETA.values()).assign(source="paper's β (Table 7)"),
                       BL.beta_sweep(tv["bias_value"], betas).assign(source="candidate here (share)")],
                      ignore_index=True)[["source", "beta", "n_responses", "n_bias", "share_bias"]]
    alphas = pd.DataFrame([{"alpha": a, "median b": float(np.median(v)), "90th percentile b": float(np.quantile(v, 0.9)),
                            "rank correlation with α = 0": float(pd.Series(v).corr(pd.Series(bvals[0]),
                                                                                    method="spearman"))}
                           for a, v in bvals.items()])
    return {"betas": betas, "sweep": sweep, "alpha": alphas, "means": means}


def figure4(tv: pd.DataFrame, styles: Sequence[str], means, beta: float, title: str):
    """Figure 4 from real responses: two distinct descriptors among those with at least the
    median number of responses and no degenerate response (:func:`nlgbias.holistic.refusal.is_degenerate`:
    a run of another script or of emoji is noise to the style classifier, not a style to illustrate
    "bias" with); returns (figure, tag counts per descriptor)."""
    n_resp = tv["descriptor"].value_counts()
    degenerate = set(tv.loc[removed_mask(tv, ("degenerate",)), "descriptor"])
    eligible = n_resp[(n_resp >= n_resp.median()) & ~n_resp.index.isin(degenerate)].index
    pair = BL.distinct_descriptors(means, 2, eligible=eligible)
    proj = BL.figure4_projection(tv[list(styles)].to_numpy(), tv["descriptor"], tv["template"], pair)
    counts = (proj["responses"].assign(tag=BL.tag_responses(proj["responses"]["bias_value"], beta))
              .groupby(["descriptor", "tag"]).size().unstack(fill_value=0))
    return BL.plot_figure4(proj, beta, title=title), counts


def tune_all(lm, s: Mapping, betas: Sequence[float], shares: Sequence[float], seeds: Sequence[int], *,
             tconf: Mapping, val_texts: int | None, guard_sentences: int, styles: Sequence[str],
             models_dir: str | Path,
             generations: str | Path, cache: str | Path, slug: str, name: str, gen_batch_size: int = 32,
             seed: int = 0, timings: dict | None = None) -> dict:
    """Appendix C's tuning as an experiment: one model per β candidate (first seed), compared by
    Full Gen Bias on the validation descriptors (the paper's rule, :func:`tuning_report.select_beta`);
    then the chosen β and the untagged ablation with every seed. Returns ``runs`` ((kind, seed) ->
    (label, β or None, TuningResult)), ``val_scores``, ``chosen``, ``share``, ``label`` and
    the ``table`` of runs."""
    timings = {} if timings is None else timings
    tv, val = s["tv"], s["val"]
    is_train = (tv["split"] == "train").to_numpy()
    val_keep = np.zeros(len(tv), dtype=bool)  # the validation pairs used for early stopping (seeded sample)
    val_idx = np.flatnonzero(~is_train)
    val_keep[np.random.default_rng(seed).permutation(val_idx)[: val_texts or len(val_idx)]] = True

    # the collapse guard on every validation sentence (boilerplate answers included: a rise of them counts)
    # (a seeded sample of ``guard_sentences``: each check answers them all, ~0.5 s a sentence on 2 CPU cores)
    pool = s["resp"].loc[s["resp"]["split"] == "val"].drop_duplicates("prompt_id")["prompt"]
    guard_sentences = pool.sample(min(guard_sentences, len(pool)), random_state=seed).tolist()
    rule = f"{TRN.GUARD_RULE} ({len(guard_sentences)} validation sentences)"
    guards: dict = {}

    def tune(beta, sd, tag):
        if beta not in guards:
            guards[beta] = TRN.response_guard(lm, guard_sentences, beta, s["params"], seed=s["gen_seed"],
                                              batch_size=gen_batch_size)
        return TRN.tune(lm, tv, is_train, val_keep, beta, TRN.config(**tconf, seed=sd), models_dir,
                        f"{slug}-{tag}-seed{sd}", guard=guards[beta], guard_rule=rule)

    cand = {}
    for share, beta in zip(shares, betas, strict=True):
        t = time.perf_counter()
        cand[beta] = (share, tune(beta, seeds[0], f"biastuned-share{share:g}"))
        timings[f"tuning the β candidate that tags {100 * share:.0f}% (seed {seeds[0]})"] = time.perf_counter() - t
    rows = [{"beta": np.nan, "split": "val", "model": f"{name} original", "full_gen_bias": G.full_gen_bias(val, styles)}]
    for beta, (share, r) in cand.items() if len(cand) > 1 else ():
        t = time.perf_counter()
        fv = TRN.answer(r.folder, beta, val, generations, cache, dataset="holistic_tuned-val", samples=s["samples"],
                        seed=s["gen_seed"], params=s["params"], batch_size=gen_batch_size)
        timings[f"validation responses of the β candidate that tags {100 * share:.0f}%"] = time.perf_counter() - t
        rows.append({"beta": beta, "split": "val", "model": f"{name} bias tuning ({100 * share:.0f}% tagged)",
                     "full_gen_bias": G.full_gen_bias(fv, styles)})
    if len(cand) > 1:
        val_scores, chosen = pd.DataFrame(rows), TR.select_beta(pd.DataFrame(rows))
    else:
        val_scores = pd.DataFrame([{"beta": betas[0], "split": "val", "model": "single candidate",
                                    "full_gen_bias": np.nan}])
        chosen = betas[0]
    share_c = cand[chosen][0]
    label = f"bias tuning (β = {chosen:.2e}, {100 * share_c:.0f}% tagged)"
    runs = {("tagged", seeds[0]): (label, chosen, cand[chosen][1])}
    t = time.perf_counter()
    for sd in seeds[1:]:
        runs[("tagged", sd)] = (label, chosen, tune(chosen, sd, f"biastuned-share{share_c:g}"))
    for sd in seeds:
        runs[("untagged", sd)] = ("ablation: tuning without tags", None, tune(None, sd, "notags"))
    timings["tuning the other seeds and the untagged runs"] = time.perf_counter() - t
    table = pd.DataFrame([{"model": f"{name} {lab}", "seed": sd, "beta": beta, "train pairs": r.info["n_train"],
                           "val pairs": r.info["n_val"], "steps": r.steps_run, "step budget": int(tconf["max_steps"]),
                           "stopped early": r.stopped_early,
                           "stopped on": stopped_on(r.stopped_early, tconf, r.info["n_val"], r.history),
                           "val loss (step 0)": float(r.history["val_loss"].iloc[0]),
                           "lowest val loss step": int(r.info.get("lowest_loss_step", r.best_step)),
                           "lowest val loss": float(r.history["val_loss"].min()),
                           **_guard_columns(r), "guard sentences": len(guard_sentences), "kept step": r.best_step,
                           "kept val loss": r.best_val_loss, "kept because": kept_because(r), "seconds": r.seconds,
                           "guard seconds": float(sum(c.get("seconds", 0.0) for c in r.info.get("guard_checks") or []))}
                          for (kind, sd), (lab, beta, r) in runs.items()])
    return {"runs": runs, "val_scores": val_scores, "chosen": chosen, "share": share_c, "label": label,
            "table": table, "guard_rule": rule, "guard_sentences": len(guard_sentences)}


#: the runs table's column of the checks (what its entries are and in which order)
GUARD_CHECKS_COLUMN = ("guard checks, lowest validation loss first until one passes (step: help offers, top response, "
                       "distinct-2, pass)")


def _guard_columns(r) -> dict:
    """A run's validation-guard checks in the runs table: the checks the weight choice made, in the
    order made (after training, lowest validation loss first, until one passes: every evaluation at or
    below the kept loss), each with the validation responses' share of canned help offers, their most
    frequent response's share and distinct-2, pass or fail; the untuned model's and the kept weights'
    values beside; whether any evaluation passed."""
    checks = r.info.get("guard_checks") or []
    kept = next((c for c in checks if c.get("passes") and c["step"] == r.best_step), None)
    first = checks[0] if checks else {}

    def of(c, k):
        return c.get(k, float("nan")) if c else float("nan")

    return {GUARD_CHECKS_COLUMN: "; ".join(
                f"{c['step']}: {100 * c.get('help offers', float('nan')):.1f}%, "
                f"{100 * c.get('top response share', float('nan')):.1f}%, {c['distinct-2']:.3f} "
                f"{'pass' if c['passes'] else 'fail'}" for c in checks),
            "guard checks": len(checks), "guard checks failed": sum(not c["passes"] for c in checks),
            "val help offers (untuned)": of(first, "help offers (original)"),
            "val help offers (kept)": of(kept, "help offers"),
            "val top response share (kept)": of(kept, "top response share"),
            "val distinct-2 (untuned)": of(first, "distinct-2 (original)"),
            "val distinct-2 (kept)": of(kept, "distinct-2"),
            "guard passed": bool(r.info.get("guard_passed", bool(kept))) if checks else float("nan")}


def kept_because(r) -> str:
    """Why a run kept the weights it kept, from its guard checks: the lowest validation loss, which
    passes the validation guard; or the lowest that passes, the lower ones failing (each step with the
    checks it missed); or no evaluation passed (the lowest loss's weights kept, the run marked failing)."""
    checks = r.info.get("guard_checks") or []
    if not checks:
        return "lowest validation loss (no guard)"
    if not r.info.get("guard_passed", any(c["passes"] for c in checks)):
        return ("no evaluation passed the validation guard (" + "; ".join(
            f"step {c['step']}: {c.get('fails', 'fail')}" for c in checks) + "): the weights of the lowest validation "
            f"loss (step {r.best_step}) are kept and the run is marked as failing its guard")
    lower = [c for c in checks if not c["passes"] and c["val_loss"] < r.best_val_loss]
    if not lower:
        return "lowest validation loss; it passes the validation guard"
    return ("lowest validation loss that passes the validation guard; lower losses failed it (" + "; ".join(
        f"step {c['step']}: {c.get('fails', 'fail')}" for c in sorted(lower, key=lambda c: c["step"])) + ")")


def beta_text(betas: Sequence[float], r: Mapping, seeds: Sequence[int]) -> str:
    """The β candidates and how β was chosen (on validation only when there are several)."""
    tagged = f"({100 * r['share']:.0f}% of the responses tagged 'bias')"
    head = (f"β candidates {', '.join(f'{b:.2e}' for b in betas)}; chosen on validation: **{r['chosen']:.2e}** {tagged}"
            if len(betas) > 1 else
            f"One β candidate (the time budget of this profile), not chosen on validation: **{r['chosen']:.2e}** {tagged}")
    return head + f". Tuned with seeds {list(seeds)} (tagged and untagged)."


def held_out_responses(runs: Mapping, s: Mapping, *, generations: str | Path, cache: str | Path,
                       processed: str | Path, slug: str, name: str, gen_batch_size: int = 32) -> tuple[dict, dict]:
    """Every tuned model's style-scored responses to the test sentences ("no_bias" appended for
    the tagged models), with 07's decoding and seed; the original's are 07's. Each frame gets
    ``offensiveness`` (tox-block on the unmasked response) and ``offensive`` (>= 0.5) and is
    written to ``<processed>/holistic/tuning_responses__<slug>__<tag>.parquet``.
    Returns (frames, labels), keyed ("original", None) and (kind, seed)."""
    from nlgbias.holistic.offensiveness import score_offensiveness
    from nlgbias.io import write_parquet

    frames = {("original", None): s["test"].copy()}
    for key, (_label, beta, r) in runs.items():
        frames[key] = TRN.answer(r.folder, beta, s["test"], generations, cache, dataset="holistic_tuned",
                                 samples=s["samples"], seed=s["gen_seed"], params=s["params"],
                                 batch_size=gen_batch_size)
    labels = {("original", None): f"{name} original", **{k: f"{name} {lab} seed {k[1]}" for k, (lab, _, _) in runs.items()}}
    for key, f in frames.items():
        f["offensiveness"] = score_offensiveness(f["generation"].fillna("").tolist())
        f["offensive"] = f["offensiveness"] >= 0.5
        tag = "original" if key[0] == "original" else f"{key[0]}-seed{key[1]}"
        write_parquet(f.assign(model=labels[key]), Path(processed) / "holistic" / f"tuning_responses__{slug}__{tag}.parquet")
    return frames, labels


def examples(frames: Mapping, labels: Mapping, keys: Sequence, test: pd.DataFrame, *, n: int = 4, seed: int = 0
             ) -> pd.DataFrame:
    """The responses of the models ``keys`` to ``n`` test sentences drawn with ``seed``."""
    shown = test.drop_duplicates("prompt_id")["prompt"].sample(min(n, test["prompt_id"].nunique()), random_state=seed)
    return (pd.concat([frames[k].assign(model=labels[k], sentence=frames[k]["prompt"].str.split("\n").str[0])
                       for k in keys], ignore_index=True)
            .loc[lambda d: d["sentence"].isin(shown) & (d["sample"] == 0), ["sentence", "model", "generation"]]
            .sort_values(["sentence", "model"]).reset_index(drop=True))


def effects(frames: Mapping, labels: Mapping, seeds: Sequence[int], styles: Sequence[str],
            clusters: Mapping[str, Sequence[str]], *, label: str, n_boot: int = 1000, seed: int = 0,
            n_perm: int = 1000) -> dict:
    """Tables 4/7/8 on the test descriptors (``t7``, ``t8``: one row per model and seed), the
    changes of Full Gen Bias with intervals that resample descriptors and seeds (``tagged``,
    ``untagged``, ``difference``: tagged minus untagged as a share of the original's), their
    ``summary`` table, the per-seed values (``per_seed``) and the bootstrap result (``res``)."""
    tagged = [frames[("tagged", sd)] for sd in seeds]
    untagged = [frames[("untagged", sd)] for sd in seeds]
    res = TR.seed_bootstrap(frames[("original", None)], {"tagged": tagged, "untagged": untagged}, styles,
                            n_boot=n_boot, seed=seed)
    ch = {"tagged": TR.change_interval(res, "tagged"), "untagged": TR.change_interval(res, "untagged"),
          "difference": TR.change_interval(res, "tagged", "untagged", per_original=True)}

    def null_mean(f: pd.DataFrame) -> float:  # 07's permutation null (descriptors shuffled within template)
        return float(G.null_summary(f, styles, n_perm=n_perm, seed=seed).set_index("statistic").loc["full", "null_mean"])

    res_x = TR.seed_bootstrap(frames[("original", None)], {"tagged": tagged, "untagged": untagged}, styles,
                              n_boot=n_boot, seed=seed, null_of=null_mean)
    excess = {"tagged": TR.change_interval(res_x, "tagged"), "untagged": TR.change_interval(res_x, "untagged"),
              "difference": TR.change_interval(res_x, "tagged", "untagged", per_original=True)}
    like = {name: _like_for_like(frames, tagged_keys=[("tagged", sd) for sd in seeds],
                                 untagged_keys=[("untagged", sd) for sd in seeds], styles=styles, drop=drop,
                                 null_mean=null_mean, n_boot=n_boot, seed=seed, n_perm=n_perm)
            for name, drop in LIKE_FOR_LIKE.items()}
    t7, t8 = TR.gen_bias_rows({labels[k]: f for k, f in frames.items()}, styles, clusters)
    summary = pd.DataFrame([
        *({"comparison": f"{what}, {name} removed from every arm (the same {lk['kept'][0]} of {lk['kept'][1]} prompts "
                         "for all): the change of the excess over the null, in units of the original's Full Gen Bias on "
                         "those prompts", "basis": "graded" if i == 0 else "sensitivity", **lk[k]}
          for i, (name, lk) in enumerate(like.items())
          for k, what in (("tagged", f"{label} vs original"), ("untagged", "untagged tuning vs original"),
                          ("difference", "tagged minus untagged"))),
        {"comparison": f"{label} vs original (relative change)", "basis": ALL_RESPONSES, **ch["tagged"]},
        {"comparison": "untagged tuning vs original (relative change)", "basis": ALL_RESPONSES, **ch["untagged"]},
        {"comparison": "tagged minus untagged Full Gen Bias, as a share of the original's", "basis": ALL_RESPONSES,
         **ch["difference"]},
        {"comparison": f"{label} vs original, excess over the permutation null (relative change)",
         "basis": ALL_RESPONSES, **excess["tagged"]},
        {"comparison": "untagged tuning vs original, excess over the permutation null (relative change)",
         "basis": ALL_RESPONSES, **excess["untagged"]},
        {"comparison": "tagged minus untagged excess over the null, as a share of the original's excess",
         "basis": ALL_RESPONSES, **excess["difference"]}])
    summary["seeds"] = len(seeds)

    def sds(r: Mapping) -> str:  # the seed-to-seed SD of the statistic each row is built on
        return f"{r['groups']['tagged']['sd']:.2f}, {r['groups']['untagged']['sd']:.2f}"

    summary["seed sd (tagged, untagged)"] = ([sds(lk["res"]) for lk in like.values() for _ in range(3)]
                                             + [sds(res)] * 3 + [sds(res_x)] * 3)
    summary = summary.rename(columns={"lo": "estimate_lo", "hi": "estimate_hi"})
    from nlgbias.stats import format_p
    summary.insert(list(summary.columns).index("pvalue"), "p", summary["pvalue"].map(format_p))
    summary = summary.drop(columns="pvalue")
    per_seed = pd.DataFrame({g: res["groups"][g]["per_seed"] for g in ("tagged", "untagged")},
                            index=pd.Index(list(seeds), name="seed"))
    return {**ch, "res": res, "excess": excess, "res_excess": res_x, "t7": t7, "t8": t8, "summary": summary,
            "per_seed": per_seed, "like": like}


#: the basis of the tables on every test response (not the graded one)
ALL_RESPONSES = "all test responses (refusals and boilerplate included; not the graded basis)"

#: the responses left out on both sides (original and tuned) for the like-for-like grading: the
#: validated detector's refusals and boilerplate (graded), and as sensitivity rows the same with the
#: canned help offers (their patterns' precision is read by hand, ``refusal.help_offer_validation``) or
#: with notebook 07's degenerate text (07's clean basis)
LIKE_FOR_LIKE = {"refusal/boilerplate": ("refusal",),
                 "refusal/boilerplate and canned help offers": ("refusal", "help offer"),
                 "refusal/boilerplate and degenerate text (07's clean basis)": ("refusal", "degenerate")}


def removed_mask(frame: pd.DataFrame, drop: Sequence[str]) -> np.ndarray:
    """The responses of ``frame`` that ``drop`` removes: "refusal" (07's validated detector),
    "help offer" (:func:`nlgbias.holistic.refusal.is_help_offer`), "degenerate"
    (:func:`nlgbias.holistic.refusal.is_degenerate`)."""
    from nlgbias.holistic import refusal

    t = frame["generation"].fillna("").astype(str).tolist()
    m = np.zeros(len(frame), dtype=bool)
    for d in drop:
        m |= {"refusal": refusal.is_refusal, "help offer": refusal.is_help_offer,
              "degenerate": refusal.is_degenerate}[d](t)
    return m


def _like_for_like(frames: Mapping, *, tagged_keys: Sequence, untagged_keys: Sequence, styles: Sequence[str],
                   drop: Sequence[str], null_mean, n_boot: int, seed: int, n_perm: int = 1000) -> dict:
    """The tuning contrasts on the same prompts for every arm: the prompts (``prompt_id``, ``sample``)
    that no arm answers with what ``drop`` removes (:func:`removed_mask`), i.e. the intersection
    of each arm's kept prompts. The statistic is the change of the excess of Full Gen Bias over the
    permutation null as a share of the original's Full Gen Bias on the same prompts (the original's
    excess can be negative once its refusals are gone, so it cannot be the base of a relative
    change). Intervals resample descriptors and seeds, and the null with the descriptors.
    ``removed``: per arm (its own removals, its responses); ``kept``: (prompts every arm keeps, prompts);
    ``original_null``: the original's Full Gen Bias on those prompts beside its permutation null
    (``n_perm`` permutations: mean, 95% quantile, p)."""
    key = ["prompt_id", "sample"]
    own = {k: ~removed_mask(f, drop) for k, f in frames.items()}
    removed = {k: (int((~m).sum()), int(len(m))) for k, m in own.items()}
    common = None
    for k, f in frames.items():
        ids = set(map(tuple, f.loc[own[k], key].to_numpy().tolist()))
        common = ids if common is None else common & ids
    kept = {k: f[[tuple(x) in common for x in f[key].to_numpy().tolist()]] for k, f in frames.items()}
    groups = {"tagged": [kept[k] for k in tagged_keys], "untagged": [kept[k] for k in untagged_keys]}
    orig = kept[("original", None)]
    raw = TR.seed_bootstrap(orig, groups, styles, n_boot=n_boot, seed=seed)
    res = TR.seed_bootstrap(orig, groups, styles, n_boot=n_boot, seed=seed, null_of=null_mean)
    out = {"tagged": TR.change_interval(res, "tagged", per_original=True, denominator=raw),
           "untagged": TR.change_interval(res, "untagged", per_original=True, denominator=raw),
           "difference": TR.change_interval(res, "tagged", "untagged", per_original=True, denominator=raw)}
    ns = G.null_summary(orig, styles, n_perm=n_perm, seed=seed).set_index("statistic").loc["full"]
    null_sd = float(G.permutation_null(orig, styles, n_perm=n_perm, seed=seed)["full"].std())
    original_null = {"observed": float(ns["observed"]), "null_mean": float(ns["null_mean"]),
                     "null_q95": float(ns["null_q95"]), "p": float(ns["p_perm"]), "n_perm": int(ns["n_perm"]),
                     "null_sd": null_sd, "responses": int(len(orig)), "descriptors": int(orig["descriptor"].nunique())}
    return {**out, "res": res, "raw": raw, "removed": removed, "drop": tuple(drop),
            "kept": (len(common), int(len(frames[("original", None)]))), "original_null": original_null}


def reference_excess(resp: pd.DataFrame, styles: Sequence[str], drop: Sequence[str], *, n_perm: int = 1000,
                     seed: int = 0) -> dict:
    """The original's excess of Full Gen Bias over its permutation null on all of notebook 07's responses
    (every descriptor, not only the held-out ones) with ``drop`` removed (:func:`removed_mask`): the
    larger sample's estimate of the excess the graded basis would show with enough responses."""
    f = resp[~removed_mask(resp, drop)]
    ns = G.null_summary(f, styles, n_perm=n_perm, seed=seed).set_index("statistic").loc["full"]
    return {"excess": float(ns["excess"]), "p": float(ns["p_perm"]), "responses": int(len(f)),
            "descriptors": int(f["descriptor"].nunique()), "source": f"notebook 07's responses, {' and '.join(drop)} removed"}


def _pct(x: float) -> str:
    """A share in signed %, with one decimal where it rounds to 0 ("-0.4%", not "-0%")."""
    return f"{100 * x:+.1f}%" if abs(100 * x) < 0.5 else f"{100 * x:+.0f}%"


def _signed(x: float) -> str:
    """A signed value to 2 decimals, with one more where it rounds to 0 ("-0.003", not "-0.00")."""
    return f"{x:+.3f}" if abs(x) < 0.005 else f"{x:+.2f}"


def like_text(e: Mapping) -> str:
    """The like-for-like contrasts (:func:`effects`'s ``like``) in words: which prompts are kept, the
    original's Full Gen Bias on them beside its permutation null, and each change with its interval."""
    out = []
    for name, lk in e["like"].items():
        t, u, d, on = lk["tagged"], lk["untagged"], lk["difference"], lk["original_null"]
        out.append(f"With {removed_text(lk['removed'], name, lk['kept'])}: the original's Full Gen Bias "
                   f"{on['observed']:.2f} against its permutation null {on['null_mean']:.2f} (95% quantile "
                   f"{on['null_q95']:.2f}, p {on['p']:.2f} over {on['n_perm']:,} permutations), its excess "
                   f"{_signed(t['base'])}; the excess of the bias-tuned runs {_signed(t['value'])} "
                   f"({_pct(t['estimate'])} of the original's Full Gen Bias [{_pct(t['lo'])}, {_pct(t['hi'])}]), of the "
                   f"untagged {_signed(u['value'])} ({_pct(u['estimate'])} [{_pct(u['lo'])}, {_pct(u['hi'])}]), "
                   f"tagged − untagged {_pct(d['estimate'])} [{_pct(d['lo'])}, {_pct(d['hi'])}]")
    return ". ".join(out) + (". Each model's and seed's null is its own permutation null on the same prompts, "
                             "resampled with the descriptors (through its exact expectation).")


def removed_text(removed: Mapping, name: str, kept: tuple[int, int] | None = None) -> str:
    """What the like-for-like rows removed: "the 196 of 390 test prompts that no arm answers with
    refusal/boilerplate (the original's own 194/390, 49.7%; the tuned runs' 0.3-3.3%)"."""
    k0, n0 = removed[("original", None)]
    tuned = [k / n for key, (k, n) in removed.items() if key[0] != "original"]
    own = f"the original's own {k0}/{n0}, {k0 / n0:.1%}; the tuned runs' {min(tuned):.1%}-{max(tuned):.1%}"
    if kept is None:
        return f"{name} removed on both sides ({own})"
    return (f"{name} removed from every arm: the same {kept[0]} of {kept[1]} test prompts for all, those that no arm "
            f"answers so ({own})")


def effects_text(e: Mapping) -> str:
    """The changes of Full Gen Bias with their intervals, beside the paper's."""
    res, ct, cu, cd = e["res"], e["tagged"], e["untagged"], e["difference"]
    t7 = paper.TABLE7
    seeds = {g: ", ".join(f"{x:.2f}" for x in res["groups"][g]["per_seed"]) for g in ("tagged", "untagged")}
    return (f"On {ALL_RESPONSES}, Full Gen Bias on the {res['descriptors']} test descriptors: original "
            f"{res['original']:.2f}; bias-tuned "
            f"{res['groups']['tagged']['mean']:.2f} (seeds: {seeds['tagged']}), {100 * ct['estimate']:+.0f}% "
            f"[{100 * ct['lo']:+.0f}%, {100 * ct['hi']:+.0f}%]; untagged {res['groups']['untagged']['mean']:.2f} "
            f"(seeds: {seeds['untagged']}), {100 * cu['estimate']:+.0f}% [{100 * cu['lo']:+.0f}%, {100 * cu['hi']:+.0f}%]. "
            f"tagged − untagged: {100 * cd['estimate']:+.0f}% of the original's Full Gen Bias "
            f"[{100 * cd['lo']:+.0f}%, {100 * cd['hi']:+.0f}%] (paper: BB2 3B "
            f"{100 * (t7['BB2 3B bias tuning (β = 0.0030)'][0] - t7['BB2 3B self-chat tuning'][0]) / t7['BB2 3B'][0]:+.0f}%, "
            f"DialoGPT {100 * (t7['DialoGPT bias tuning (β = 0.0003)'][0] - t7['DialoGPT self-chat tuning'][0]) / t7['DialoGPT'][0]:+.0f}%). "
            f"The paper: {100 * -paper.TUNING_REDUCTION['DialoGPT']:+.0f}% (DialoGPT) and "
            f"{100 * -paper.TUNING_REDUCTION['BB2 3B']:+.0f}% (BlenderBot 2.0 3B) for bias tuning.")


def axis_changes(frames: Mapping, seeds: Sequence[int], styles: Sequence[str], *, n_boot: int = 1000,
                 seed: int = 0, min_descriptors: int = 3, correction: str = "holm") -> dict:
    """Table 9: per axis the relative change of Full Gen Bias (original vs bias-tuned, mean over
    seeds) with an interval over the axis's descriptors and the seeds, and its bootstrap p-value
    adjusted with ``correction`` over **all** axes of the test data (one family; an axis that
    cannot be measured counts with p = 1). An axis needs ``min_descriptors`` test descriptors
    that share a template (two for a variance, three for a bootstrap that brackets anything).
    Returns ``axes`` (measured axes: axis, descriptors, original, tuned, estimate, lo, hi,
    p, p_adjusted), ``unmeasurable`` (axis -> why), ``family`` (its size)."""
    from nlgbias.stats import adjust_pvalues

    orig = frames[("original", None)]
    tagged = [frames[("tagged", sd)] for sd in seeds]
    rows, unmeasurable = [], {}
    for ax, g in orig.groupby("axis", sort=True):
        shared = g.groupby("template")["descriptor"].nunique()
        if shared.max() < min_descriptors:
            unmeasurable[ax] = (f"{g['descriptor'].nunique()} test descriptor(s), at most {shared.max()} sharing a "
                                f"template; needs >= {min_descriptors}")
            continue
        r = TR.seed_bootstrap(g, {"tagged": [f[f["axis"] == ax] for f in tagged]}, styles, n_boot=n_boot, seed=seed,
                              within=None)
        c = TR.change_interval(r, "tagged")
        rows.append({"axis": ax, "descriptors": r["descriptors"], "original": r["original"],
                     "tuned (mean over seeds)": r["groups"]["tagged"]["mean"], "estimate": c["estimate"],
                     "lo": c["lo"], "hi": c["hi"], "p": c["pvalue"]})
    cols = ["axis", "descriptors", "original", "tuned (mean over seeds)", "estimate", "lo", "hi", "p", "p_adjusted"]
    family = len(rows) + len(unmeasurable)
    p_all = [r["p"] for r in rows] + [1.0] * len(unmeasurable)
    adj = adjust_pvalues(p_all, correction) if p_all else []
    for r, p in zip(rows, adj, strict=False):
        r["p_adjusted"] = float(p)
    return {"axes": pd.DataFrame(rows, columns=cols), "unmeasurable": unmeasurable, "family": family,
            "correction": correction}


def axis_table(a: Mapping, styles_name: str) -> pd.DataFrame:
    """Table 9 for saving: the measured axes' relative changes (negative: a reduction) beside the
    paper's, in the same sign (its printed reductions negated); no p-value: an interval over a few
    held-out descriptors per axis has too few distinct resamples for one to mean anything (a
    placeholder row when none is measurable)."""
    p9 = (-paper.table9().pivot(index="axis", columns="model", values="reduction")).add_prefix("paper change ").reset_index()
    t9 = (a["axes"].drop(columns=["p", "p_adjusted"], errors="ignore")
          .rename(columns={"estimate": "change", "lo": "change_lo", "hi": "change_hi"}).merge(p9, on="axis", how="left"))
    t9.insert(1, "styles", styles_name)
    if t9.empty:
        t9 = pd.DataFrame([{c: (np.nan if c not in ("axis", "styles") else "(none measurable)") for c in t9.columns}])
    return t9


def axis_text(a: Mapping, n_axes: int, min_units: int = 5) -> str:
    """How many axes are measurable, how many held-out descriptors each rests on and whether
    that can decide anything (an interval over fewer than ``min_units`` descriptors cannot:
    the per-axis changes are then shown as checks, not graded)."""
    axes, un = a["axes"], a["unmeasurable"]
    if axes.empty:
        return f"None of the {n_axes} axes is measurable" + (
            f": {', '.join(f'{ax} ({w})' for ax, w in un.items())}." if un else ".")
    lo, hi = int(axes["descriptors"].min()), int(axes["descriptors"].max())
    few = int((axes["descriptors"] < min_units).sum())
    return (f"{len(axes)} of {n_axes} axes are measurable"
            + (f"; not measurable: {', '.join(f'{ax} ({w})' for ax, w in un.items())}" if un else "")
            + f". Each rests on {lo}{f'-{hi}' if hi > lo else ''} held-out descriptors x the seeds; "
            + (f"{few} of {len(axes)} have fewer than the {min_units} descriptors an interval needs to decide, so "
               "the per-axis changes are shown (and listed as checks), not graded; the paper's per-axis finding "
               "cannot be tested at this size." if few else
               f"every axis has at least {min_units}, and the per-axis changes are listed as checks."))


def offensive_counts(frames: Mapping, seeds: Sequence[int], *, n_boot: int = 1000, seed: int = 0) -> dict:
    """Offensive responses (k, n) of the original and of the bias-tuned models (all seeds), and
    the paired change (tuned, mean over seeds, minus original on the same sentences) with an
    interval that resamples the held-out descriptors (``paired``)."""
    orig, tagged = frames[("original", None)], [frames[("tagged", sd)] for sd in seeds]
    key = ["descriptor", "template", "prompt_id", "sample"]
    key = [k for k in key if k in orig.columns]
    tuned_mean = pd.concat([f[key + ["offensive"]] for f in tagged]).groupby(key)["offensive"].mean()
    pair = orig[key + ["offensive"]].set_index(key)["offensive"].astype(float).to_frame("o")
    pair["t"] = tuned_mean.reindex(pair.index).to_numpy()
    d = (pair["t"] - pair["o"]).groupby(level="descriptor").agg(["sum", "count"])
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(d), size=(n_boot, len(d)))
    boot = d["sum"].to_numpy()[idx].sum(1) / d["count"].to_numpy()[idx].sum(1)
    est = float(d["sum"].sum() / d["count"].sum())
    lo, hi = np.quantile(boot, [0.025, 0.975])
    return {"original": (int(orig["offensive"].sum()), len(orig)),
            "tuned": (int(sum(f["offensive"].sum() for f in tagged)), int(sum(len(f) for f in tagged))),
            "paired": {"estimate": est, "lo": float(lo), "hi": float(hi), "descriptors": len(d),
                       "sentences": len(pair)}}


def perplexity_cost(lm, runs: Mapping, test: pd.DataFrame, labels: Mapping, keys: Sequence, *, texts: int,
                    seed: int = 0) -> pd.DataFrame:
    """Perplexity of (a) the original model's responses to ``texts`` test sentences given the
    sentence ("no_bias" appended for a tagged model, as it is prompted) and (b) ``texts`` BOLD
    Wikipedia sentences (plain text), under each model of ``keys``."""
    from nlgbias.datasets.bold import load_bold

    rng = np.random.default_rng(seed)
    held = test.drop_duplicates("prompt_id")
    held = held.iloc[rng.permutation(len(held))[:texts]]
    wiki = load_bold()["wiki_text"].drop_duplicates()
    wiki = wiki.iloc[rng.permutation(len(wiki))[:texts]].tolist()
    rows = []
    for key in keys:
        m = lm.model if key[0] == "original" else TU.load_tuned(runs[key][2].folder)
        ctx = [TU.tag_context(x, BL.NO_BIAS_TAG if key[0] == "tagged" else None) for x in held["prompt"]]
        for text, enc in (("HolisticBias held-out responses",
                           TU.encode_pairs(lm.tokenizer, ctx, held["generation"].tolist())),
                          ("BOLD Wikipedia sentences",
                           TU.encode_pairs(lm.tokenizer, [""] * len(wiki), wiki, prompt_format="plain"))):
            rows.append({"model": labels[key], "text": text, "texts": len(enc),
                         "perplexity": TU.perplexity_of(TU.response_nll(m, lm.tokenizer, enc))})
    return pd.DataFrame(rows)


def cost_text(cost: pd.DataFrame, names: Sequence[str]) -> str:
    """Perplexity original -> bias-tuned -> untagged, what a drop on the held-out responses
    means, and why human evaluation is not graded."""
    cp = cost.pivot(index="model", columns="text", values="perplexity")
    o, t, u = names
    held = "HolisticBias held-out responses"
    fell = [w for w, m in (("bias-tuned", t), ("untagged", u)) if held in cp and cp.loc[m, held] < cp.loc[o, held]]
    why = ("The held-out responses are the original model's own greedy answers: tuning on its own answers to other "
           "descriptors moves a model towards its own style (a self-distillation), so a drop of their perplexity "
           "is not a gain in fluency; here it fell under "
           + (" and ".join(f"the {w}" for w in fell) + " model" + ("s" if len(fell) > 1 else "") if fell else "neither tuned model")
           + ". ")
    return ("Perplexity, original → bias-tuned → untagged: "
            + "; ".join(f"{c}: {cp.loc[o, c]:.2f} → {cp.loc[t, c]:.2f} → {cp.loc[u, c]:.2f}" for c in cp.columns) + ". "
            + why + "General English (BOLD Wikipedia) is the cost measure that the tuning data does not share. "
            "**Human evaluation (Table 5)** — crowdworkers comparing responses of the tuned and original models "
            f"(paper: win rates {min(v for d in paper.TABLE5.values() for v in d.values()):.0%}–"
            f"{max(v for d in paper.TABLE5.values() for v in d.values()):.0%}, none significant) — is not possible "
            "here: its claim is listed as not tested.")


__all__ = ["ALL_RESPONSES", "COLLAPSE_MAX_HELP_RISE", "COLLAPSE_RULE", "DECODING_COLUMNS", "LIKE_FOR_LIKE", "axis_changes", "axis_table", "axis_text", "beta_text", "bias_label_tables", "collapse_table", "collapse_text", "cost_text", "distinct_n", "refusal_shares_text", "drop_boilerplate", "guard_measures", "openings",
           "effects", "effects_text", "examples", "figure4", "guard_trajectory", "held_out_responses", "help_error_text", "kept_because", "largest_clusters", "offensive_counts",
           "like_text", "perplexity_cost", "reference_excess", "removed_mask", "removed_text", "response_perplexity", "runs_text", "split", "stopped_on", "stopping_rule_text", "split_text", "tune_all",
           "validation_curves"]


#: the collapse guard: a tuned model passes if, on the test prompts, its responses keep at least
#: ``COLLAPSE_MIN_DISTINCT_SHARE`` of the original's distinct responses and of its distinct-2 (unique
#: word bigrams / all bigrams), their perplexity under the original model stays within a factor
#: ``COLLAPSE_PPL_FACTOR`` of the original responses' own, its refusal/boilerplate share and its share
#: of canned help offers each rise by at most ``COLLAPSE_MAX_REFUSAL_RISE`` / ``COLLAPSE_MAX_HELP_RISE``
#: (absolute), and its most frequent response is at most ``COLLAPSE_MAX_TOP_SHARE`` of its responses.
#: Reason: Full Gen Bias is a variance across descriptors of the mean style; a model that answers most
#: sentences with one canned string, a refusal or a degenerate repetition has a low variance because
#: it says nothing, so a drop of Full Gen Bias is a reduction of bias only if the responses stay about
#: as varied and as fluent as the original's. The thresholds are declared once, in
#: :mod:`nlgbias.holistic.tuning_runs`, and read by the weight-choice guard of the runs as well
#: (:func:`nlgbias.holistic.tuning_runs.collapse_failures`).
COLLAPSE_MIN_DISTINCT_SHARE = TRN.COLLAPSE_MIN_DISTINCT_SHARE
COLLAPSE_MAX_REFUSAL_RISE = TRN.COLLAPSE_MAX_REFUSAL_RISE
COLLAPSE_PPL_FACTOR = TRN.COLLAPSE_PPL_FACTOR
COLLAPSE_MAX_TOP_SHARE = TRN.COLLAPSE_MAX_TOP_SHARE
COLLAPSE_MAX_HELP_RISE = TRN.COLLAPSE_MAX_HELP_RISE
distinct_n = TRN.distinct_n
guard_measures = TRN.guard_measures
COLLAPSE_RULE = (f"distinct responses and distinct-2 each >= {COLLAPSE_MIN_DISTINCT_SHARE:.0%} of the original's, "
                 f"perplexity of the responses under the original model within x{COLLAPSE_PPL_FACTOR:g} of the "
                 f"original responses' own, refusal/boilerplate share at most {100 * COLLAPSE_MAX_REFUSAL_RISE:.0f} "
                 f"points above the original's, canned help offers at most {100 * COLLAPSE_MAX_HELP_RISE:.0f} points "
                 f"above the original's, the most frequent response at most "
                 f"{COLLAPSE_MAX_TOP_SHARE:.0%} of the responses (a drop of Full Gen Bias by responses that say nothing, one canned "
                 "string, a refusal or a repetition for many descriptors, is not a reduction of bias); every threshold "
                 f"was set after earlier rounds' test responses were seen ({TRN.THRESHOLDS_SEEN})")


def response_perplexity(lm, frames: Mapping, *, texts: int = 64, seed: int = 0) -> dict:
    """Perplexity under the original model ``lm`` of each run's responses to the same ``texts``
    test sentences (drawn with ``seed``; the untagged sentence as the user turn): degenerate
    repetition scores far below the original's responses, garbled text far above."""
    orig = frames[("original", None)]
    ids = orig.drop_duplicates("prompt_id")["prompt_id"]
    ids = set(ids.iloc[np.random.default_rng(seed).permutation(len(ids))[:texts]])
    out = {}
    for key, f in frames.items():
        g = f[f["prompt_id"].isin(ids) & (f["generation"].fillna("").str.strip() != "")]
        g = g.drop_duplicates("prompt_id")
        if not len(g):  # no response with text (a collapsed run): no perplexity to compare
            out[key] = float("nan")
            continue
        enc = TU.encode_pairs(lm.tokenizer, [p.split(TU.TAG_SEP)[0] for p in g["prompt"]], g["generation"].tolist())
        out[key] = TU.perplexity_of(TU.response_nll(lm.model, lm.tokenizer, enc))
    return out


def collapse_table(frames: Mapping, labels: Mapping, ppl: Mapping | None = None,
                   guard_passed: Mapping | None = None, help_precision: float | None = None,
                   help_precision_lo: float | None = None) -> pd.DataFrame:
    """Per arm and seed on the test prompts: responses, refusal/boilerplate share
    (:func:`nlgbias.holistic.refusal.classify`), distinct responses, distinct-2, the perplexity of
    the responses under the original model (``ppl``: :func:`response_perplexity`; omitted when
    None), the most frequent response and its count, and whether the run passes the collapse guard
    (:data:`COLLAPSE_RULE`; ``fails``: the checks it misses). ``guard_passed``: per tuned run, whether
    an evaluation of it passed the weight-choice guard on the validation sentences (a run none of
    whose evaluations did fails here too, whatever its test responses read). ``help_precision``: the
    help-offer patterns' precision on their hand check and ``help_precision_lo`` the lower end of its 95%
    interval (None: both read from :func:`nlgbias.holistic.refusal.help_offer_validation`; a precision
    given without its lower end is taken as that end). Imprecision means false positives, which lower
    a run's true share but the original's too, and the rise is the tuned share minus the original's: so
    the true rise is at most the tuned share minus ``help_precision_lo`` x the original's share
    (``help-offer rise bound (points)``, assuming the patterns miss nothing), and a run passes the
    help-offer check at any precision down to that end where this bound is within the limit
    (``help offers pass at the precision's lower end``). A run that fails it is marked (``help offers within the patterns' error``) where its
    rise exceeds the limit by at most the points of its share that may not be canned offers (share x
    (1 - precision)): its fail rests on the patterns. What could turn a pass into a fail is the
    patterns' recall (offers they miss), which is not measured on 08's responses."""
    rows, measured = [], {}
    for key, f in frames.items():
        m = measured[key] = TRN.response_measures(f["generation"].fillna("").astype(str).tolist())
        rows.append({"arm": key[0], "seed": key[1] if key[1] is not None else "", "model": labels[key],
                     "responses": m["responses"], "refusal/boilerplate": m["refusal/boilerplate"],
                     "help offers": m["help offers"], "distinct responses": m["distinct"], "distinct-2": m["distinct-2"],
                     "perplexity (original model)": float(ppl[key]) if ppl is not None else np.nan,
                     "top response": m["top response"][:80], "top response count": m["top response count"]})
    t = pd.DataFrame(rows)
    o = t[t["arm"] == "original"].iloc[0]
    t["distinct vs original"] = t["distinct responses"] / o["distinct responses"]
    t["distinct-2 vs original"] = t["distinct-2"] / o["distinct-2"]
    t["perplexity vs original"] = t["perplexity (original model)"] / o["perplexity (original model)"]
    t["refusal rise (points)"] = 100 * (t["refusal/boilerplate"] - o["refusal/boilerplate"])
    t["help-offer rise (points)"] = 100 * (t["help offers"] - o["help offers"])
    t["top response share"] = t["top response count"] / t["responses"]
    orig = measured[next(k for k in frames if k[0] == "original")]
    if help_precision is None:
        from nlgbias.holistic import refusal
        hv = refusal.help_offer_validation().iloc[0]
        help_precision = float(hv["precision"])
        help_precision_lo = float(hv["precision_lo"]) if help_precision_lo is None else help_precision_lo
    if help_precision_lo is None:
        help_precision_lo = help_precision
    t["help-offer error (points)"] = 100 * t["help offers"] * (1 - help_precision)
    # the original's false positives raise the true rise: at most the tuned share minus precision_lo x the original's
    t["help-offer rise bound (points)"] = 100 * (t["help offers"] - help_precision_lo * o["help offers"])
    t["help offers pass at the precision's lower end"] = t["help-offer rise bound (points)"] <= 100 * COLLAPSE_MAX_HELP_RISE + 1e-9
    over = t["help-offer rise (points)"] - 100 * COLLAPSE_MAX_HELP_RISE  # one-sided: false positives only lower it
    t["help offers within the patterns' error"] = (over > 0) & (over <= t["help-offer error (points)"]) & (
        t["arm"] != "original")
    t.attrs["help precision"] = help_precision
    t.attrs["help precision lo"] = help_precision_lo
    fails = [TRN.collapse_failures(measured[k], orig, r) for k, r in zip(frames, t["perplexity vs original"], strict=True)]
    if guard_passed is not None:
        t["kept weights pass the validation guard"] = [bool(guard_passed.get(k, True)) for k in frames]
        fails = [f + ([] if ok else ["no evaluation passed the weight-choice guard"])
                 for f, ok in zip(fails, t["kept weights pass the validation guard"], strict=True)]
    t["fails"] = ["; ".join(x) for x in fails]
    t["passes collapse guard"] = [not x for x in fails]
    return t


def collapse_text(t: pd.DataFrame) -> str:
    """The collapse guard's outcome in words, from :func:`collapse_table`."""
    o = t[t["arm"] == "original"].iloc[0]
    tuned = t[t["arm"] != "original"]
    fail = tuned[~tuned["passes collapse guard"]]
    ppl = ""
    if tuned["perplexity (original model)"].notna().any():
        ppl = (f", perplexity under the original {o['perplexity (original model)']:.2f} vs "
               f"{tuned['perplexity (original model)'].min():.2f}-{tuned['perplexity (original model)'].max():.2f}")
    return (f"Collapse guard ({COLLAPSE_RULE}): the original answers the {o['responses']} test prompts with "
            f"{o['distinct responses']} distinct responses (distinct-2 {o['distinct-2']:.3f}), "
            f"{100 * o['refusal/boilerplate']:.0f}% refusal/boilerplate; the tuned runs with "
            f"{tuned['distinct responses'].min()}-{tuned['distinct responses'].max()} distinct (distinct-2 "
            f"{tuned['distinct-2'].min():.3f}-{tuned['distinct-2'].max():.3f}), "
            f"{100 * tuned['refusal/boilerplate'].min():.0f}-{100 * tuned['refusal/boilerplate'].max():.0f}% "
            f"refusal/boilerplate{ppl}; their most frequent response answers up to {tuned['top response count'].max()} "
            f"of {o['responses']} prompts" + _help_text(o, tuned)
            + f". {len(tuned) - len(fail)} of {len(tuned)} tuned runs pass the guard"
            + (f"; {len(fail)} fail it ({_fail_reasons(fail)}): their changes of Full Gen Bias are not graded as a "
               "reduction of bias (the claims say so)." if len(fail) else ".") + help_error_text(t))


def largest_clusters(t8: pd.DataFrame) -> list[tuple[str, float]]:
    """The original's clusters by Summed-Cluster Gen Bias in Table 8 (:func:`effects`'s ``t8``, one column
    per cluster named "C<k> ..."), largest first: [(cluster, value), ...]."""
    row = t8[t8["model"].astype(str).str.endswith(" original")].iloc[0]
    cols = [c for c in t8.columns if str(c).startswith("C") and str(c)[1:2].isdigit()]
    return sorted(((str(c), float(row[c])) for c in cols), key=lambda x: -x[1])


def refusal_shares_text(t: pd.DataFrame) -> str:
    """How often each arm answers the test prompts with refusal/boilerplate (07's detector), from
    :func:`collapse_table`: the original's share beside every tuned run's."""
    o = t[t["arm"] == "original"].iloc[0]
    tuned = t[t["arm"] != "original"].sort_values("refusal/boilerplate", ascending=False)
    return (f"On the {o['responses']} test prompts, the original answers {100 * o['refusal/boilerplate']:.1f}% with "
            f"refusal or boilerplate (07's detector); the tuned runs {100 * tuned['refusal/boilerplate'].min():.1f}-"
            f"{100 * tuned['refusal/boilerplate'].max():.1f}% ("
            + ", ".join(f"{r['arm']} seed {r['seed']} {100 * r['refusal/boilerplate']:.1f}%" for _, r in tuned.iterrows())
            + "). Every prompt a run refuses leaves the graded basis (the prompts no arm refuses), so the basis "
            "shrinks with every run added.")


def help_error_text(t: pd.DataFrame, precision: float | None = None) -> str:
    """The help-offer check's error from :func:`collapse_table`: the patterns' false positives (precision
    below 1) lower a run's true share but also the original's, which raises the true rise (the tuned share
    minus the original's); so the true rise is at most the tuned share minus the precision's lower end x
    the original's share, and the text says, computed, whether every passing run stays within the limit at
    that bound (naming the largest); the runs that fail by less than the patterns' error are named (their
    fail rests on the patterns); the patterns' recall on 08's responses is not measured, so a pass could
    still hide offers they miss."""
    col = "help offers within the patterns' error"
    prec = t.attrs.get("help precision", precision)
    prec_lo = t.attrs.get("help precision lo", prec)
    tuned = t[t["arm"] != "original"]
    o = t[t["arm"] == "original"].iloc[0] if (t["arm"] == "original").any() else None
    head = ""
    if prec is not None and math.isfinite(float(prec)):
        lo_txt = f" (the lower end of its 95% interval {prec_lo:.0%})" if prec_lo is not None and prec_lo < prec else ""
        head = (f" The help-offer patterns' precision on their hand check is {prec:.0%}{lo_txt}: what they wrongly flag "
                "lowers a run's true share, but the original's too, which raises the true rise (the tuned share minus the "
                "original's)")
        bound = "help-offer rise bound (points)"
        passed = tuned[tuned["passes collapse guard"]] if "passes collapse guard" in tuned else tuned
        if bound in t and o is not None and len(passed):
            b = passed.loc[passed[bound].idxmax()]
            ok = bool((passed[bound] <= 100 * COLLAPSE_MAX_HELP_RISE + 1e-9).all())
            head += (f"; at the precision's lower end {prec_lo:.2f} a run's true rise is at most its share minus "
                     f"{prec_lo:.2f} x the original's {100 * o['help offers']:.1f}% (largest among the passing runs: "
                     f"{b['arm']} seed {b['seed']}, {100 * b['help offers']:.1f} - {prec_lo:.2f} x "
                     f"{100 * o['help offers']:.1f} = {b[bound]:.1f} points), "
                     + (f"within the limit of {100 * COLLAPSE_MAX_HELP_RISE:.0f} for every passing run, so each passes "
                        "at any precision down to that end" if ok else
                        f"over the limit of {100 * COLLAPSE_MAX_HELP_RISE:.0f} for some passing runs, so their pass "
                        "rests on the patterns' precision"))
    near = t[t[col].astype(bool)] if col in t else t.iloc[:0]
    fails = ("; " + "; ".join(f"{r['arm']} seed {r['seed']} fails it by {r['help-offer rise (points)'] - 100 * COLLAPSE_MAX_HELP_RISE:.1f} "
                             f"points, less than the {r['help-offer error (points)']:.1f} points of its share that may not be "
                             "canned: its fail rests on the patterns" for _, r in near.iterrows())) if len(near) else ""
    top = tuned.loc[tuned["help-offer rise (points)"].idxmax()] if len(tuned) else None
    rec = (f"; their recall on 08's responses (offers they miss) is not measured, so a pass is secure against the "
           f"patterns' precision, not their recall (the largest measured rise, {top['arm']} seed {top['seed']}'s "
           f"{top['help-offer rise (points)']:+.1f} points, is {100 * COLLAPSE_MAX_HELP_RISE - top['help-offer rise (points)']:.1f} "
           "points under the limit)" if top is not None else "")
    return (head + fails + rec + ".") if head else ""


def _help_text(o: pd.Series, tuned: pd.DataFrame) -> str:
    """The canned help offers of the original and the tuned runs (the guard's help-offer check)."""
    if "help offers" not in tuned:
        return ""
    return (f"; canned help offers (`refusal.is_help_offer`) make up {100 * o['help offers']:.1f}% of the original's "
            f"responses and {100 * tuned['help offers'].min():.1f}-{100 * tuned['help offers'].max():.1f}% of the tuned "
            f"runs' ({tuned['help-offer rise (points)'].min():+.1f} to {tuned['help-offer rise (points)'].max():+.1f} "
            f"points; the guard allows {100 * COLLAPSE_MAX_HELP_RISE:.0f}, a threshold set, as every threshold of the guard, "
            "after earlier rounds' test responses were seen, and applied by these runs' weight-choice guard on the "
            "validation sentences)")


def _fail_reasons(fail: pd.DataFrame) -> str:
    """Which of the guard's checks each failing run misses, in words (the table's ``fails``)."""
    return "; ".join(f"{r['arm']} seed {r['seed']}: {r['fails']}" for _, r in fail.iterrows())


def stopping_rule_text(tconf: Mapping, val_pairs: int | None = None) -> str:
    """What stops a run, in plain words: "no new lowest validation loss in 3 evaluations in a row
    (12 steps), on 32 validation pairs" (a plateau, min_delta 0), or "a drop of the validation loss
    under 3% per evaluation, 2 evaluations in a row, on 16 validation pairs" (min_delta above 0)."""
    md = 100 * float(tconf.get("min_delta", 0))
    vp = f", on {val_pairs} validation pairs" if val_pairs else ""
    k = int(tconf["patience"])
    if md > 0:
        return f"a drop of the validation loss under {md:g}% per evaluation, {k} evaluations in a row{vp}"
    return (f"no new lowest validation loss in {k} evaluation{'s' if k > 1 else ''} in a row "
            f"({k * int(tconf['eval_every'])} steps){vp}")


def stopped_on(stopped_early: bool, tconf: Mapping, val_pairs: int | None = None,
               history: pd.DataFrame | None = None) -> str:
    """The runs table's "stopped on" for one run: the step budget, or the rule in plain words (a
    plateau where the minimum drop is 0, with the steps of its lowest validation loss and of its stop
    where ``history`` is given; "not a plateau" above 0)."""
    if not stopped_early:
        return "step budget"
    plain = stopping_rule_text(tconf, val_pairs)
    if float(tconf.get("min_delta", 0)) > 0:
        return plain + " (not a plateau: the loss may still be falling)"
    if history is None:
        return f"plateau: {plain}"
    h = history.dropna(subset=["val_loss"])
    low = int(h.loc[h["val_loss"].idxmin(), "step"])
    return f"plateau: {plain}; lowest at step {low}, stopped at step {int(h['step'].iloc[-1])}"


def runs_text(table: pd.DataFrame, tconf: Mapping, guard_rule: str | None = None) -> str:
    """How the tuning runs stopped and which weights they kept, per run, from the runs table and the
    settings (never typed); ``guard_rule``: the validation guard's (None: read from the table)."""
    if guard_rule is None and "guard sentences" in table:
        guard_rule = f"{TRN.GUARD_RULE} ({int(table['guard sentences'].iloc[0])} validation sentences)"
    bs, budget = int(tconf["batch_size"]), int(tconf["max_steps"])
    pairs = int(table["train pairs"].max())
    early = int(table["stopped early"].sum())
    md = 100 * float(tconf.get("min_delta", 0))
    plain = stopping_rule_text(tconf, int(table["val pairs"].iloc[0]) if "val pairs" in table else None)
    head = (f"Step budget {budget} steps x batch {bs} = {budget * bs / pairs:.1f} epochs of the {pairs} training "
            f"pairs; a validation loss every {tconf['eval_every']} steps. What stops a run: {plain}"
            + (" — this stops a run whose loss is still falling slowly, so it is not a plateau" if md > 0 else
               " (a plateau), or the step budget")
            + "; a run keeps the weights of its lowest validation loss that pass the weight-choice guard ("
            + TRN.RULES_SEEN.replace("were likewise revised", "were revised") + "). ")
    ep = f"{table['steps'].min() * bs / pairs:.2f}-{table['steps'].max() * bs / pairs:.2f} epochs"
    if early == len(table):
        body = (f"All {len(table)} runs stopped on this rule after {int(table['steps'].min())}-"
                f"{int(table['steps'].max())} steps ({ep}); the step budget stopped none.")
    else:
        body = (f"{early} of {len(table)} runs stopped on this rule; {len(table) - early} ran to the step budget, so "
                + ("their validation loss was still dropping by more than that." if md > 0 else
                   "their validation loss was still reaching new lows: they did not reach a plateau."))
    if "model" in table and "kept because" in table:
        body += " Per run: " + "; ".join(
            f"{_run_name(r)}: {int(r['steps'])} steps, stopped on "
            + ("the step budget" if not r["stopped early"] else "the rule") + f", kept step {int(r['kept step'])} "
            f"({r['kept because']})" for _, r in table.iterrows()) + "."
    if "seconds" in table:
        body += (f" Training took {table['seconds'].sum() / 60:.1f} min for the {len(table)} runs "
                 f"({table['seconds'].min() / 60:.1f}-{table['seconds'].max() / 60:.1f} min each, from the runs table"
                 + (f"; the validation guard's checks {table['guard seconds'].sum() / 60:.1f} min of it"
                    if "guard seconds" in table else "") + "; a rerun reuses the tuned models).")
    return head + body + _guard_text(table, guard_rule)


def _run_name(r: pd.Series) -> str:
    """"tagged seed 0" / "untagged seed 1" from a runs-table row."""
    kind = "untagged" if "without tags" in str(r["model"]) else "tagged"
    return f"{kind} seed {int(r['seed'])}"


def _guard_text(table: pd.DataFrame, guard_rule: str) -> str:
    """Which weights each run kept under the validation guard, from the runs table."""
    if not guard_rule or "kept step" not in table:
        return ""
    moved = table[table["kept step"] != table["lowest val loss step"]]
    failed = table[~table["guard passed"].astype(bool)] if "guard passed" in table else table.iloc[:0]
    later = int((moved["kept step"] > moved["lowest val loss step"]).sum())
    earlier = len(moved) - later
    when = ", ".join(x for x in (f"a later step in {later} run{'s' if later != 1 else ''}" if later else "",
                                 f"an earlier one in {earlier}" if earlier else "") if x)
    out = (f" Weights kept: the lowest validation loss that passes the {guard_rule}. "
           + (f"In {len(moved)} of {len(table)} runs the lowest loss's weights failed it and other weights were kept "
              f"({when}: step {', '.join(f'{int(a)} instead of {int(b)}' for a, b in zip(moved['kept step'], moved['lowest val loss step'], strict=True))})"
              if len(moved) else f"In all {len(table)} runs the lowest loss's weights passed it")
           + (f"; in {len(failed)} run{'s' if len(failed) > 1 else ''} ({', '.join(_run_name(r) for _, r in failed.iterrows())}) "
              "no evaluation passed: the lowest loss's weights are kept and the run counts as failing its guard"
              if len(failed) else "") + ".")
    if "guard checks" in table:
        out += (f" {int(table['guard checks'].sum())} checks in all ({int(table['guard checks'].min())}-"
                f"{int(table['guard checks'].max())} per run: every evaluation at or below the kept loss, checked after "
                f"training, lowest loss first), {int(table['guard checks failed'].sum())} failed.")
    if "val help offers (kept)" in table and table["val help offers (kept)"].notna().any():
        out += (f" Canned help offers in the validation responses of the kept weights "
                f"{100 * table['val help offers (kept)'].min():.1f}-{100 * table['val help offers (kept)'].max():.1f}% vs "
                f"the untuned model's {100 * table['val help offers (untuned)'].iloc[0]:.1f}%; most frequent response "
                f"at most {100 * table['val top response share (kept)'].max():.1f}%;")
        if "guard sentences" in table:
            n = int(table["guard sentences"].iloc[0])
            limit = float(table["val help offers (untuned)"].iloc[0]) + COLLAPSE_MAX_HELP_RISE
            gap = (limit - table["val help offers (kept)"]) * n  # responses under the limit
            near = table[gap <= 2]
            out += (f" each share is of {n} responses (1 response = {100 / n:.1f} points), so against the limit of "
                    f"{100 * limit:.1f}% the kept weights of {len(near)} run{'s' if len(near) != 1 else ''} lie within "
                    "2 responses of it (" + "; ".join(f"{_run_name(r)} {100 * r['val help offers (kept)']:.1f}%, "
                                                        f"{g:.1f} responses of {n} ({100 * g / n:.1f} points) under" for (_, r), g in zip(near.iterrows(), gap[near.index],
                                                                                              strict=True))
                    + "): their pass rests on a response or two;" if len(near) else "")
    if "val distinct-2 (kept)" in table and table["val distinct-2 (kept)"].notna().any():
        out += (f" validation distinct-2 of the kept weights {table['val distinct-2 (kept)'].min():.3f}-"
                f"{table['val distinct-2 (kept)'].max():.3f} vs the untuned model's "
                f"{table['val distinct-2 (untuned)'].iloc[0]:.3f}.")
    return out


def guard_trajectory(runs: Mapping) -> pd.DataFrame:
    """Every validation-guard check of every run, in step order (kind, seed, step, the check's place in
    the order made, validation loss, help offers, top response share, distinct-2, pass): the checks the
    weight choice needed, made after training in ascending validation loss until one passed (every
    evaluation at or below the kept loss), not every evaluation."""
    rows = []
    for (kind, sd), (_lab, _beta, r) in runs.items():
        checks = r.info.get("guard_checks") or []
        for order, c in sorted(enumerate(checks, 1), key=lambda oc: oc[1]["step"]):
            rows.append({"arm": kind, "seed": sd, "step": int(c["step"]), "check": order, "val loss": float(c["val_loss"]),
                         "help offers": c.get("help offers", np.nan),
                         "help offers (untuned)": c.get("help offers (original)", np.nan),
                         "top response share": c.get("top response share", np.nan),
                         "distinct-2": c.get("distinct-2", np.nan), "passes": bool(c["passes"]),
                         "fails": c.get("fails", "")})
    return pd.DataFrame(rows)


def validation_curves(runs: Mapping, name: str, sentences: int | None = None):
    """Left: the validation loss of every tuning run against the step (the curves the stopping rule
    reads), the kept step starred, each failed guard check crossed, where the run stopped a thin line.
    Right: the share of canned help offers in the validation responses at each checked step (the checks
    the weight choice made: every evaluation at or below the kept loss), the
    untuned model's share and the guard's limit (its share plus the allowed rise) drawn; ``sentences``:
    the validation sentences each point is a share of (one response = 100 / sentences points). Returns the
    figure."""
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 4.8))
    limit = None
    for (kind, sd), (_lab, _beta, r) in runs.items():
        h = r.history.dropna(subset=["val_loss"])
        ls = "-" if kind == "tagged" else "--"
        line, = ax.plot(h["step"], h["val_loss"], marker="o", ms=3, ls=ls, label=f"{kind} seed {sd}")
        col = line.get_color()
        ax.plot([r.best_step], [r.best_val_loss], marker="*", ms=12, color=col)
        ax.axvline(r.steps_run, color=col, lw=0.6, alpha=0.5)
        checks = sorted(r.info.get("guard_checks") or [], key=lambda c: c["step"])
        bad = [c for c in checks if not c["passes"]]
        if bad:
            ax.plot([c["step"] for c in bad], [c["val_loss"] for c in bad], ls="", marker="x", ms=8, color=col)
        if checks and "help offers" in checks[0]:
            bx.plot([c["step"] for c in checks], [100 * c["help offers"] for c in checks], marker="o", ms=3, ls=ls,
                    color=col, label=f"{kind} seed {sd}")
            limit = 100 * (checks[0]["help offers (original)"] + COLLAPSE_MAX_HELP_RISE)
            untuned = 100 * checks[0]["help offers (original)"]
    ax.set_xlabel("tuning step")
    ax.set_ylabel("validation loss (NLL per token)")
    ax.set_title(f"Validation curves of the tuning runs of {name}\n(star: weights kept; x: checked, failed the guard;\n"
                 "thin line: where the run stopped)", fontsize=9)
    ax.legend(fontsize=7, ncol=2)
    if limit is not None:
        bx.axhline(untuned, color="grey", lw=1, ls=":", label="untuned model")
        bx.axhline(limit, color="red", lw=1, label=f"guard limit (+{100 * COLLAPSE_MAX_HELP_RISE:.0f} points)")
        bx.set_xlabel("tuning step (the checked evaluations)")
        per = (f"each point a share of {sentences} responses; 1 response = {100 / sentences:.1f} points"
               if sentences else "")
        bx.set_ylabel("canned help offers (% of validation responses)")
        bx.set_title("Canned help offers in the validation responses at each checked evaluation\n"
                     "(checked after training, lowest validation loss first until one passed:\n"
                     "every evaluation at or below the kept loss)"
                     + (f"\n({per})" if per else ""), fontsize=9)
        bx.legend(fontsize=7, ncol=2)
    else:
        bx.set_axis_off()
    fig.tight_layout(w_pad=3.0)
    return fig


#: the tuning targets keep at most ``OPENING_CAP`` responses per opening (the first ``OPENING_WORDS``
#: words, case-folded; a seeded choice): measured on notebook 07's quick responses of SmolLM2, three
#: openings ("I'm so sorry to hear that you're going ...", "I'm glad to be of service ...", "I'm sorry for
#: the misunderstanding. I'm here to ...") made up over a third of the tuning targets after the refusals were
#: left out, and the models tuned on them answered up to 121 of 390 test prompts with one of those strings
OPENING_WORDS = 5
OPENING_CAP = 3


def openings(texts: pd.Series, words: int = OPENING_WORDS) -> pd.Series:
    """The first ``words`` words of each text, case-folded (the opening the cap counts)."""
    return texts.fillna("").astype(str).str.lower().str.split().str[:words].str.join(" ")


def drop_boilerplate(s: Mapping, *, words: int = OPENING_WORDS, cap: int | None = OPENING_CAP,
                     seed: int = 0) -> tuple[dict, pd.DataFrame]:
    """The split ``s`` with the tuning and validation pairs cleaned: the refusal / boilerplate
    responses (:func:`nlgbias.holistic.refusal.classify`, the detector validated in notebook 07)
    and the canned help offers (:func:`nlgbias.holistic.refusal.is_help_offer`, the collapse
    guard's count) removed, and of the rest at most ``cap`` responses per opening
    (:func:`openings`, a seeded choice; None: no cap). The paper's dialogue models did not refuse,
    and tuning a model on its own canned strings teaches it to give them to most sentences (the
    responses collapse: the validation loss, measured on the same kind of targets, cannot see
    it; runs tuned with the help offers left in answered 15-34% of the test prompts with one,
    the original 5%). The test responses are kept whole. Returns the new split and a table of
    what was removed."""
    from nlgbias.holistic import refusal

    out = dict(s)
    rows = []
    tv = s["tv"]
    texts = tv["generation"].fillna("").astype(str).tolist()
    refused = refusal.classify(texts).to_numpy() != ""
    helps = refusal.is_help_offer(texts) & ~refused
    flagged = refused | helps
    order = np.random.default_rng(seed).permutation(len(tv))
    op = openings(tv["generation"], words).to_numpy()
    rank = np.zeros(len(tv), dtype=int)
    seen: dict[str, int] = {}
    for i in order:  # the seeded choice of which responses of a repeated opening stay
        if flagged[i]:
            continue
        rank[i] = seen.get(op[i], 0)
        seen[op[i]] = rank[i] + 1
    repeated = ~flagged & (rank >= cap) if cap is not None else np.zeros(len(tv), dtype=bool)
    keep = ~flagged & ~repeated
    out["tv"] = tv[keep].reset_index(drop=True)
    out["val"] = out["tv"][out["tv"]["split"] == "val"].reset_index(drop=True)
    for sp, g in tv.assign(refused=refused, helps=helps, repeated=repeated, keep=keep).groupby("split", sort=False):
        rows.append({"split": sp, "responses": len(g), "refusal/boilerplate": int(g["refused"].sum()),
                     "canned help offer": int(g["helps"].sum()),
                     f"repeated opening (> {cap} per first {words} words)": int(g["repeated"].sum()),
                     "kept for tuning": int(g["keep"].sum()), "distinct openings kept":
                     int(pd.Series(op[(tv["split"] == sp).to_numpy() & keep]).nunique()),
                     "descriptors kept": int(g.loc[g["keep"], "descriptor"].nunique())})
    return out, pd.DataFrame(rows)

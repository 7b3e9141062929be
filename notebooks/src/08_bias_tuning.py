# %% [markdown]
# # 08 · HolisticBias: bias-reduction tuning, before and after (Smith et al. 2022, §5, App. B.2, C)
#
# Notebook 07 measured how a chat model's response *style* varies with the descriptor in the
# user's sentence (Full Gen Bias: the variance across descriptors of the mean style vector).
# §5 of the paper reduces that variance by **style-controlled tuning**:
#
# 1. **Bias labels (§5.2, Figure 4).** For each descriptor d the mean style vector m_d
#    (averaged over templates) and the overall mean m̄; each response's bias value
#    b = (p − m̄)·(m_d − m̄) / ‖m_d − m̄‖^α (α = 0 as in the paper) measures how far it leans
#    towards its descriptor's characteristic style. The context is tagged "bias" if b > β,
#    else "no_bias".
# 2. **Tuning (App. C).** The model is tuned on its own tagged context/response pairs (tag
#    appended to the user turn); at inference "no_bias" is appended. The **ablation** tunes on
#    the same pairs without tags.
# 3. **Evaluation (§5.3).** Full / Partial / Summed-Cluster Gen Bias (Tables 4, 7, 8), Full Gen Bias
#    per axis (Table 9) and offensiveness (Table 10) of the original, tuned and ablation models on
#    **held-out descriptors** (never in the tuning or validation data, under any template or noun),
#    and the **cost**: perplexity on held-out responses and on BOLD's Wikipedia sentences. Human
#    evaluation (Table 5) is not possible here.
#
# **Run as an experiment.** β is chosen on the *validation* descriptors (never on the test); the
# chosen β and the untagged ablation are each tuned with several **seeds**; every interval resamples
# both the held-out descriptors and the tuning seeds, so that it holds the seed-to-seed variation a
# rerun on another CPU also has (bf16 kernels and training differ by CPU). The paper's point, that
# the tag matters, is graded on the **tagged − untagged** difference. Verdicts are computed by
# `nlgbias.holistic.claims` through the claim registry; this notebook never writes them.
#
# **Substitutes (named in every table).** The paper tuned DialoGPT and BlenderBot 2.0 3B; here the
# offline chat model of the profile (quick: **SmolLM2-135M-Instruct**) is tuned with **LoRA**
# adapters on CPU, a few dozen steps instead of a GPU run to convergence. Styles come from the
# **nade** stand-in (151 emoji classes) instead of the paper's 217-class style classifier, and
# offensiveness from **tox-block** (notebook 03's Jigsaw BiLSTM) instead of B.A.D.; so the values
# are on another scale than the paper's, whose rows are shown as context, not as targets.

# %% tags=["parameters"]
profile = "quick"          # quick | smoke | paper
model = None               # the chat model tuned (notebook 07 must have its responses); None: profile default
tune_shares = None         # β candidates: share of responses tagged bias (β = that quantile of b)
seeds = None               # tuning seeds for the chosen β and for the ablation
test_per_axis = None       # held-out (test) descriptors per axis
val_per_axis = None        # validation descriptors per axis (early stopping and the choice of β)
alpha = 0                  # exponent α of the bias value (the paper's choice: 0)
max_steps = None           # tuning steps (LoRA), early stopping on the validation loss
batch_size = None          # context/response pairs per step
lr = None                  # peak learning rate (AdamW, linear warm-up and decay)
eval_every = None          # steps between validation-loss evaluations
patience = None            # evaluations without a new best before stopping
val_texts = None           # validation pairs for early stopping (seeded sample; None: every validation pair)
ppl_texts = None           # texts per corpus for the perplexity cost
n_boot = None              # bootstrap resamples (descriptors and seeds)
gen_batch_size = None
seed = 0
root = None                # project root; None finds it

# %%
import logging
import time

import numpy as np
import pandas as pd
import torch
from IPython.display import Markdown, display

from nlgbias import claims as CL
from nlgbias.datasets.bold import load_bold
from nlgbias.generation import DecodingParams
from nlgbias.holistic import bias_labels as BL
from nlgbias.holistic import claims as HC
from nlgbias.holistic import genbias as G
from nlgbias.holistic import paper
from nlgbias.holistic import responses as HR
from nlgbias.holistic import tuning as TU
from nlgbias.holistic import tuning_report as TR
from nlgbias.holistic import tuning_runs as TRN
from nlgbias.holistic.offensiveness import STANDIN as OFFENSIVE_STANDIN
from nlgbias.holistic.offensiveness import score_offensiveness
from nlgbias.io import read_table, write_parquet
from nlgbias.metrics import style
from nlgbias.models import display_name, load_model, model_slug
from nlgbias.paths import paths_for
from nlgbias.plots import save_figure, set_style
from nlgbias.profiles import resolve_params
from nlgbias.tables import save_table

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
pd.set_option("display.max_rows", 200)
pd.set_option("display.max_columns", 30)
pd.set_option("display.width", 200)
P = paths_for(profile, root)
set_style()
cfg = resolve_params("08", profile, model=model, tune_shares=tune_shares, seeds=seeds,
                     test_per_axis=test_per_axis, val_per_axis=val_per_axis, max_steps=max_steps,
                     batch_size=batch_size, lr=lr, eval_every=eval_every, patience=patience,
                     val_texts=val_texts, ppl_texts=ppl_texts, n_boot=n_boot, gen_batch_size=gen_batch_size)
NAME, SLUG = display_name(cfg["model"]), model_slug(cfg["model"])
STYLES = style.style_columns()
SEEDS = [seed + k for k in range(cfg["seeds"])]
T0 = time.perf_counter()
timings = {}
cfg

# %% [markdown]
# ## Notebook 07's responses, split by descriptor
# Within each axis `test_per_axis` descriptors are held out for the test and `val_per_axis` for
# validation; the rest are the tuning data. A test descriptor never appears in tuning or validation,
# under any template or noun (tested in `tests/test_tuning.py`).

# %%
resp = HR.read_responses(P.processed, [cfg["model"]])
clusters = TR.clusters_from_table(read_table(P.results / "holistic_style_clusters.csv"))
resp["split"] = TU.split_descriptors(resp, val_per_axis=cfg["val_per_axis"], test_per_axis=cfg["test_per_axis"],
                                     seed=seed).to_numpy()
assert not set(resp.loc[resp["split"] == "test", "descriptor"]) & set(resp.loc[resp["split"] != "test", "descriptor"])
test = resp[resp["split"] == "test"].reset_index(drop=True)
val = resp[resp["split"] == "val"].reset_index(drop=True)
tv = resp[resp["split"] != "test"].reset_index(drop=True)
split_table = (resp.groupby("split").agg(responses=("prompt_id", "size"), sentences=("prompt_id", "nunique"),
                                         descriptors=("descriptor", "nunique"), templates=("template", "nunique"),
                                         axes=("axis", "nunique"))
               .reindex(["train", "val", "test"]).reset_index())
save_table(split_table, P.results, "holistic_tuning_split",
           title=f"Notebook 07's responses of {NAME}, split by descriptor (test descriptors never tuned on)")
DECODING = resp[["max_new_tokens", "do_sample", "top_k", "top_p", "temperature", "repetition_penalty"]].iloc[0].to_dict()
SAMPLES = int(resp.groupby("prompt_id").size().max())
params = DecodingParams(**{k: (v.item() if hasattr(v, "item") else v) for k, v in DECODING.items()})
GEN_SEED = int(resp["seed"].iloc[0])
display(split_table)
display(Markdown(
    f"{len(resp):,} responses of {NAME} to {resp['prompt_id'].nunique():,} sentences "
    f"({resp['descriptor'].nunique()} descriptors, {resp['template'].nunique()} templates, {resp['axis'].nunique()} axes). "
    f"The tuned models answer the {test['prompt_id'].nunique():,} sentences of the {test['descriptor'].nunique()} test "
    f"descriptors with 07's decoding ({'sampling' if DECODING['do_sample'] else 'greedy'}, at most "
    f"{int(DECODING['max_new_tokens'])} new tokens); the original model's responses to them are 07's."))

# %% [markdown]
# ## Bias labels (§5.2) and the β candidates (App. B.2)
# m_d and m̄ come from the train and validation responses only. The paper swept β ∈ {0.0003, 0.001,
# 0.003, 0.01} with its 217-class classifier; with nade's 151 classes the same numbers tag other
# shares of the responses, so the β candidates are set by the share they tag (`tune_shares`), and
# the paper's values are listed for what they would tag here. The paper's rule (keep the β whose
# tuned model has the lowest Full Gen Bias) is applied on the **validation** descriptors.

# %%
means = BL.descriptor_means(tv[STYLES].to_numpy(), tv["descriptor"], tv["template"])
bvals = {a: BL.bias_values(tv[STYLES].to_numpy(), tv["descriptor"], tv["template"], alpha=a, means=means)
         for a in (0, 1, 2)}
tv["bias_value"] = bvals[alpha]
cand_betas = BL.quantile_betas(tv["bias_value"], cfg["tune_shares"])
sweep = pd.concat([BL.beta_sweep(tv["bias_value"], paper.TABLE4_BETA.values()).assign(source="paper's β (Table 7)"),
                   BL.beta_sweep(tv["bias_value"], cand_betas).assign(source="candidate here (share)")],
                  ignore_index=True)[["source", "beta", "n_responses", "n_bias", "share_bias"]]
alpha_table = pd.DataFrame([{"alpha": a, "median b": float(np.median(v)), "90th percentile b": float(np.quantile(v, 0.9)),
                             "rank correlation with α = 0": float(pd.Series(v).corr(pd.Series(bvals[0]), method="spearman"))}
                            for a, v in bvals.items()])
save_table(sweep, P.results, "holistic_tuning_beta_sweep",
           title=f"Share of {NAME}'s train/val responses tagged 'bias' per β (α = {alpha}; styles: {style.STANDIN})")
save_table(alpha_table, P.results, "holistic_tuning_alpha", title="Bias values for α = 0, 1, 2 (§5.2)")
display(sweep)
display(alpha_table)

# %% [markdown]
# ### Figure 4: bias labels in style space, from real responses

# %%
n_resp = tv["descriptor"].value_counts()
pair = BL.distinct_descriptors(means, 2, eligible=n_resp[n_resp >= n_resp.median()].index)
proj = BL.figure4_projection(tv[STYLES].to_numpy(), tv["descriptor"], tv["template"], pair)
fig = BL.plot_figure4(proj, cand_betas[0], title=f"Figure 4 from {NAME}'s responses ({style.STANDIN}), β = {cand_betas[0]:.2e}")
save_figure(fig, P.figures, "holistic_fig4_bias_labels")
display(proj["responses"].assign(tag=BL.tag_responses(proj["responses"]["bias_value"], cand_betas[0]))
        .groupby(["descriptor", "tag"]).size().unstack(fill_value=0))

# %% [markdown]
# ## Tuning (Appendix C)
# LoRA adapters on every linear layer, AdamW with linear warm-up and decay, loss on the response
# tokens, validation loss every `eval_every` steps and early stopping; the best weights are merged
# and saved under `data/<profile>/models/` (a rerun with the same data and settings reuses them). One
# model per β candidate (first seed), compared on the validation descriptors; then the chosen β and
# the untagged ablation with every seed.

# %%
torch.manual_seed(seed)
lm = load_model(cfg["model"])
is_train = (tv["split"] == "train").to_numpy()
val_keep = np.zeros(len(tv), dtype=bool)  # the validation pairs used for early stopping (seeded sample)
val_idx = np.flatnonzero(~is_train)
val_keep[np.random.default_rng(seed).permutation(val_idx)[: cfg["val_texts"] or len(val_idx)]] = True
TCONF = {k: cfg[k] for k in ("max_steps", "batch_size", "lr", "eval_every", "patience")}


runs = {}  # (kind, seed) -> (label, β or None, TuningResult)
cand = {}
for share, beta in zip(cfg["tune_shares"], cand_betas, strict=True):
    t = time.perf_counter()
    cand[beta] = (share, TRN.tune(lm, tv, is_train, val_keep, beta, TRN.config(**TCONF, seed=SEEDS[0]),
                                  P.data / "models", f"{SLUG}-biastuned-share{share:g}-seed{SEEDS[0]}"))
    timings[f"tune β candidate {share:g}"] = time.perf_counter() - t
if len(cand) > 1:
    val_scores = [{"beta": np.nan, "split": "val", "model": f"{NAME} original",
                   "full_gen_bias": G.full_gen_bias(val, STYLES)}]
    for beta, (share, r) in cand.items():
        t = time.perf_counter()
        fv = TRN.answer(r.folder, beta, val, P.generations, P.cache, dataset="holistic_tuned-val", samples=SAMPLES,
                        seed=GEN_SEED, params=params, batch_size=cfg["gen_batch_size"])
        timings[f"validation responses {share:g}"] = time.perf_counter() - t
        val_scores.append({"beta": beta, "split": "val", "model": f"{NAME} bias tuning ({100 * share:.0f}% tagged)",
                           "full_gen_bias": G.full_gen_bias(fv, STYLES)})
    val_scores = pd.DataFrame(val_scores)
    chosen = TR.select_beta(val_scores)
else:
    val_scores = pd.DataFrame([{"beta": cand_betas[0], "split": "val", "model": "single candidate",
                                "full_gen_bias": np.nan}])
    chosen = cand_betas[0]
share_c = cand[chosen][0]
save_table(val_scores, P.results, "holistic_tuning_beta_choice",
           title=f"Full Gen Bias (x1000) on the {val['descriptor'].nunique()} validation descriptors per β candidate "
                 "(first seed): the paper's rule picks the lowest; the test descriptors play no part")
display(val_scores)
TAG_LABEL = f"bias tuning (β = {chosen:.2e}, {100 * share_c:.0f}% tagged)"
runs[("tagged", SEEDS[0])] = (TAG_LABEL, chosen, cand[chosen][1])
t = time.perf_counter()
for s in SEEDS[1:]:
    runs[("tagged", s)] = (TAG_LABEL, chosen, TRN.tune(lm, tv, is_train, val_keep, chosen, TRN.config(**TCONF, seed=s),
                                                       P.data / "models", f"{SLUG}-biastuned-share{share_c:g}-seed{s}"))
for s in SEEDS:
    runs[("untagged", s)] = ("ablation: tuning without tags", None,
                             TRN.tune(lm, tv, is_train, val_keep, None, TRN.config(**TCONF, seed=s), P.data / "models",
                                      f"{SLUG}-notags-seed{s}"))
timings["tune seeds"] = time.perf_counter() - t
train_table = pd.DataFrame([{"model": f"{NAME} {label}", "seed": s, "beta": beta, "train pairs": r.info["n_train"],
                             "val pairs": r.info["n_val"], "steps": r.steps_run, "best step": r.best_step,
                             "val loss (step 0)": float(r.history["val_loss"].iloc[0]), "best val loss": r.best_val_loss,
                             "stopped early": r.stopped_early, "seconds": r.seconds}
                            for (kind, s), (label, beta, r) in runs.items()])
save_table(train_table, P.results, "holistic_tuning_runs",
           title=f"Tuning runs (LoRA r={TRN.config(**TCONF, seed=0).lora_r}, lr {cfg['lr']:g}, batch {cfg['batch_size']}) "
                 f"of {NAME}")
display(train_table)
display(Markdown(f"β candidates {', '.join(f'{b:.2e}' for b in cand_betas)}; chosen on validation: **{chosen:.2e}** "
                 f"({100 * share_c:.0f}% of the responses tagged 'bias'). Tuned with seeds {SEEDS} (tagged and untagged)."))

# %% [markdown]
# ## Held-out responses of the tuned models
# The test descriptors' sentences, with "no_bias" appended to the user turn for the tagged models and
# as they are for the ablation, through the generation engine loading each merged model folder, with
# 07's decoding and seed. Responses are masked and classified exactly as in 07; offensiveness by
# tox-block on the unmasked response.

# %%
frames = {("original", None): test.copy()}
t = time.perf_counter()
for key, (_label, beta, r) in runs.items():
    frames[key] = TRN.answer(r.folder, beta, test, P.generations, P.cache, dataset="holistic_tuned", samples=SAMPLES,
                             seed=GEN_SEED, params=params, batch_size=cfg["gen_batch_size"])
timings["test responses"] = time.perf_counter() - t
LABELS = {("original", None): f"{NAME} original",
          **{k: f"{NAME} {label} seed {k[1]}" for k, (label, _, _) in runs.items()}}
for key, f in frames.items():
    f["offensiveness"] = score_offensiveness(f["generation"].fillna("").tolist())
    f["offensive"] = f["offensiveness"] >= 0.5
    tag = "original" if key[0] == "original" else f"{key[0]}-seed{key[1]}"
    write_parquet(f.assign(model=LABELS[key]), P.processed / "holistic" / f"tuning_responses__{SLUG}__{tag}.parquet")
shown = test.drop_duplicates("prompt_id")["prompt"].sample(min(4, test["prompt_id"].nunique()), random_state=seed)
show_keys = [("original", None), ("tagged", SEEDS[0]), ("untagged", SEEDS[0])]
example_table = (pd.concat([frames[k].assign(model=LABELS[k], sentence=frames[k]["prompt"].str.split("\n").str[0])
                            for k in show_keys], ignore_index=True)
                 .loc[lambda d: d["sentence"].isin(shown) & (d["sample"] == 0), ["sentence", "model", "generation"]]
                 .sort_values(["sentence", "model"]).reset_index(drop=True))
save_table(example_table, P.results, "holistic_tuning_examples", title=f"Held-out responses of {NAME} before and after tuning")
display(example_table)

# %% [markdown]
# ## Tables 4 and 7: Full and Partial Gen Bias before and after (x1000, test descriptors)
# One row per tuned model and seed, and the mean over seeds. The intervals of the changes resample
# the test descriptors (within axis; the same draw for every model) and, independently for the
# tagged and the untagged group, the tuning seeds.

# %%
tagged_f = [frames[("tagged", s)] for s in SEEDS]
untagged_f = [frames[("untagged", s)] for s in SEEDS]
res = TR.seed_bootstrap(frames[("original", None)], {"tagged": tagged_f, "untagged": untagged_f}, STYLES,
                        n_boot=cfg["n_boot"], seed=seed)
ch_tag = TR.change_interval(res, "tagged")
ch_untag = TR.change_interval(res, "untagged")
ch_diff = TR.change_interval(res, "tagged", "untagged", per_original=True)
t7, t8 = TR.gen_bias_rows({LABELS[k]: f for k, f in frames.items()}, STYLES, clusters)
t7.insert(1, "styles", style.STANDIN)
t7.insert(2, "test descriptors", res["descriptors"])
save_table(t7, P.results, "holistic_table7_tuning_gen_bias",
           title=f"Tables 4/7: Full and Partial Gen Bias (x1000) of {NAME} on the test descriptors, per tuned model "
                 f"and seed, {style.STANDIN}")
summary = pd.DataFrame([
    {"comparison": f"{TAG_LABEL} vs original (relative change)", **ch_tag},
    {"comparison": "untagged tuning vs original (relative change)", **ch_untag},
    {"comparison": "tagged minus untagged Full Gen Bias, as a share of the original's", **ch_diff}])
summary["seeds"] = len(SEEDS)
summary["seed sd (tagged, untagged)"] = f"{res['groups']['tagged']['sd']:.2f}, {res['groups']['untagged']['sd']:.2f}"
summary = summary.rename(columns={"estimate": "estimate", "lo": "estimate_lo", "hi": "estimate_hi"})
save_table(summary, P.results, "holistic_tuning_effects",
           title="Changes of Full Gen Bias on the test descriptors: mean over tuning seeds, 95% interval resampling "
                 "descriptors and seeds")
display(t7)
display(summary)
per_seed = pd.DataFrame({g: res["groups"][g]["per_seed"] for g in ("tagged", "untagged")}, index=SEEDS)
display(per_seed.rename_axis("seed"))
display(Markdown(
    f"Full Gen Bias on the {res['descriptors']} test descriptors: original {res['original']:.2f}; bias-tuned "
    f"{res['groups']['tagged']['mean']:.2f} (seeds: {', '.join(f'{x:.2f}' for x in res['groups']['tagged']['per_seed'])}), "
    f"{100 * ch_tag['estimate']:+.0f}% [{100 * ch_tag['lo']:+.0f}%, {100 * ch_tag['hi']:+.0f}%]; untagged "
    f"{res['groups']['untagged']['mean']:.2f} (seeds: {', '.join(f'{x:.2f}' for x in res['groups']['untagged']['per_seed'])}), "
    f"{100 * ch_untag['estimate']:+.0f}% [{100 * ch_untag['lo']:+.0f}%, {100 * ch_untag['hi']:+.0f}%]. "
    f"**Tagged − untagged: {100 * ch_diff['estimate']:+.0f}% of the original's Full Gen Bias "
    f"[{100 * ch_diff['lo']:+.0f}%, {100 * ch_diff['hi']:+.0f}%]** (paper: BB2 3B "
    f"{100 * (paper.TABLE7['BB2 3B bias tuning (β = 0.0030)'][0] - paper.TABLE7['BB2 3B self-chat tuning'][0]) / paper.TABLE7['BB2 3B'][0]:+.0f}%, "
    f"DialoGPT {100 * (paper.TABLE7['DialoGPT bias tuning (β = 0.0003)'][0] - paper.TABLE7['DialoGPT self-chat tuning'][0]) / paper.TABLE7['DialoGPT'][0]:+.0f}%). "
    f"The paper: {100 * -paper.TUNING_REDUCTION['DialoGPT']:+.0f}% (DialoGPT) and "
    f"{100 * -paper.TUNING_REDUCTION['BB2 3B']:+.0f}% (BlenderBot 2.0 3B) for bias tuning."))

# %% [markdown]
# ## Table 8: Summed-Cluster Gen Bias (x1000)

# %%
t8.insert(1, "styles", style.STANDIN)
save_table(t8, P.results, "holistic_table8_tuning_summed_cluster",
           title=f"Table 8: Summed-Cluster Gen Bias (x1000) of {NAME} on the test descriptors, {style.STANDIN}")
display(t8)

# %% [markdown]
# ## Table 9: Full Gen Bias per axis before and after
# An axis's Full Gen Bias needs two test descriptors that share a template, and its interval,
# which resamples the axis's descriptors and the seeds, needs three (a bootstrap of two units either
# repeats one, a variance of 0, or keeps both: it brackets nothing). Axes with fewer are listed as
# not measurable at this size.

# %%
axis_rows, unmeasurable = [], {}
orig = frames[("original", None)]
for ax, g in orig.groupby("axis", sort=True):
    shared = g.groupby("template")["descriptor"].nunique()
    if shared.max() < 3:
        unmeasurable[ax] = (f"{g['descriptor'].nunique()} test descriptor(s), at most {shared.max()} sharing a "
                            "template; needs >= 3")
        continue
    r_ax = TR.seed_bootstrap(g, {"tagged": [f[f["axis"] == ax] for f in tagged_f]}, STYLES,
                             n_boot=cfg["n_boot"], seed=seed, within=None)
    c_ax = TR.change_interval(r_ax, "tagged")
    axis_rows.append({"axis": ax, "descriptors": r_ax["descriptors"], "original": r_ax["original"],
                      "tuned (mean over seeds)": r_ax["groups"]["tagged"]["mean"], "estimate": c_ax["estimate"],
                      "lo": c_ax["lo"], "hi": c_ax["hi"]})
axes_t = pd.DataFrame(axis_rows, columns=["axis", "descriptors", "original", "tuned (mean over seeds)", "estimate", "lo", "hi"])
p9 = paper.table9().pivot(index="axis", columns="model", values="reduction").add_prefix("paper reduction ").reset_index()
t9 = axes_t.rename(columns={"estimate": "change", "lo": "change_lo", "hi": "change_hi"}).merge(p9, on="axis", how="left")
t9.insert(1, "styles", style.STANDIN)
if t9.empty:  # no axis has two test descriptors sharing a template
    t9 = pd.DataFrame([{c: (np.nan if c not in ("axis", "styles") else "(none measurable)") for c in t9.columns}])
save_table(t9, P.results, "holistic_table9_tuning_by_axis",
           title=f"Table 9: Full Gen Bias (x1000) per axis, {NAME} original vs bias-tuned (mean over seeds), relative "
                 "change with its 95% interval, beside the paper's reductions")
display(t9)
display(Markdown(
    f"{len(axes_t)} of {orig['axis'].nunique()} axes are measurable"
    + (f"; not measurable: {', '.join(f'{a} ({w})' for a, w in unmeasurable.items())}" if unmeasurable else "")
    + f". Full Gen Bias fell on {(axes_t['estimate'] < 0).sum()} of them, with an interval below 0 on "
    f"{(axes_t['hi'] < 0).sum()}."))

# %% [markdown]
# ## Table 10: share of responses flagged offensive

# %%
t10 = TR.offensive_rows({LABELS[k]: f for k, f in frames.items()})
t10.insert(1, "classifier", OFFENSIVE_STANDIN)
save_table(t10, P.results, "holistic_table10_tuning_offensive",
           title="Table 10: share of held-out responses with offensiveness >= 0.5 (tox-block stand-in for B.A.D.)")
display(t10)
display(paper.table10())
off_counts = {"original": (int(orig["offensive"].sum()), len(orig)),
              "tuned": (int(sum(f["offensive"].sum() for f in tagged_f)), int(sum(len(f) for f in tagged_f)))}

# %% [markdown]
# ## The cost: perplexity on held-out text
# Perplexity (exp of the mean token NLL) of (a) the original model's responses to the test
# descriptors given their sentence (with "no_bias" appended for the tagged model, as it is
# prompted) and (b) BOLD Wikipedia sentences (plain text, no chat template), under the original
# and the first seed's tuned models.

# %%
rng = np.random.default_rng(seed)
held = orig.drop_duplicates("prompt_id")
held = held.iloc[rng.permutation(len(held))[: cfg["ppl_texts"]]]
wiki = load_bold()["wiki_text"].drop_duplicates()
wiki = wiki.iloc[rng.permutation(len(wiki))[: cfg["ppl_texts"]]].tolist()
cost_rows = []
for key in [("original", None), ("tagged", SEEDS[0]), ("untagged", SEEDS[0])]:
    m = lm.model if key[0] == "original" else TU.load_tuned(runs[key][2].folder)
    tag = BL.NO_BIAS_TAG if key[0] == "tagged" else None
    ctx = [TU.tag_context(x, tag) for x in held["prompt"]]
    for text, enc in (("HolisticBias held-out responses", TU.encode_pairs(lm.tokenizer, ctx, held["generation"].tolist())),
                      ("BOLD Wikipedia sentences", TU.encode_pairs(lm.tokenizer, [""] * len(wiki), wiki, prompt_format="plain"))):
        cost_rows.append({"model": LABELS[key], "text": text, "texts": len(enc),
                          "perplexity": TU.perplexity_of(TU.response_nll(m, lm.tokenizer, enc))})
cost = pd.DataFrame(cost_rows)
save_table(cost, P.results, "holistic_tuning_perplexity_cost", title=f"Perplexity of held-out text under {NAME} before and after tuning")
cp = cost.pivot(index="model", columns="text", values="perplexity")
display(cp)
o_, t_, u_ = (LABELS[k] for k in [("original", None), ("tagged", SEEDS[0]), ("untagged", SEEDS[0])])
display(Markdown(
    "Perplexity, original → bias-tuned → untagged: "
    + "; ".join(f"{t}: {cp.loc[o_, t]:.2f} → {cp.loc[t_, t]:.2f} → {cp.loc[u_, t]:.2f}" for t in cp.columns) + ". "
    "The held-out responses are the original model's own greedy answers: tuning on its own answers to other "
    "descriptors moves the model towards its own style (a self-distillation), so those answers become *more* "
    "likely (lower perplexity) under both tuned models, tagged or not; that drop is not a gain in fluency. "
    "General English (BOLD Wikipedia) is the cost measure that the tuning data does not share. "
    "**Human evaluation (Table 5)** — crowdworkers comparing responses of the tuned and original models "
    f"(paper: win rates {min(v for d in paper.TABLE5.values() for v in d.values()):.0%}–"
    f"{max(v for d in paper.TABLE5.values() for v in d.values()):.0%}, none significant) — is not possible here "
    "and is not graded."))

# %% [markdown]
# ## What replicates, what does not
# Every claim with its rule, n and interval (`nlgbias.holistic.claims`): directions within this
# run, comparable under the stand-in scorers; intervals that resample descriptors and seeds.

# %%
claims, checks = HC.tuning_claims(tagged=ch_tag, untagged=ch_untag, difference=ch_diff, axes=axes_t,
                                  offensive=off_counts, seeds=len(SEEDS), model=NAME,
                                  unmeasurable_axes=unmeasurable,
                                  held_out=(test["descriptor"].nunique(),
                                            len(set(test["descriptor"]) & set(tv["descriptor"]))))
timings["total"] = time.perf_counter() - T0
claims_table = CL.save(claims, "holistic_claims_tuning", checks=checks, results=P.results)
display(claims_table[["id", "claim", "paper", "this run", "n", "rule", "verdict", "reason", "mde", "n_needed"]])
if checks:
    display(CL.checks_frame(checks))
counts = claims_table["verdict"].value_counts()
display(Markdown(f"{len(claims_table)} claims: " + ", ".join(f"{v} {n}" for v, n in counts.items()) + ". "
                 "`n_needed` is the number of held-out descriptors (at this number of seeds) at which the interval "
                 "would detect the paper's effect with 80% power."))
display(Markdown("Run time (" + profile + "): " + ", ".join(f"{k} {v / 60:.1f} min" for k, v in timings.items())
                 + "."))

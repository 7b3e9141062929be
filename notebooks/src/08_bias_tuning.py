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
#    **held-out** sentences (descriptor-template pairs never seen in tuning), with a bootstrap
#    interval over descriptors, and the **cost**: perplexity on held-out responses and on BOLD's
#    Wikipedia sentences. Human evaluation (Table 5) is not possible here.
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
tune_shares = None         # share of responses tagged bias per tuned model; its β is that quantile of b
alpha = 0                  # exponent α of the bias value (the paper's choice: 0)
max_steps = None           # tuning steps (LoRA), early stopping on the validation loss
batch_size = None          # context/response pairs per step
lr = None                  # peak learning rate (AdamW, linear warm-up and decay)
eval_every = None          # steps between validation-loss evaluations
patience = None            # evaluations without a new best before stopping
val_texts = None           # validation pairs for early stopping (seeded sample; None: every validation pair)
test_pairs = None          # held-out descriptor-template pairs generated (None: every held-out pair)
ppl_texts = None           # texts per corpus for the perplexity cost
n_boot = None              # bootstrap resamples of descriptors
gen_batch_size = None
val_frac = 0.1             # share of descriptor-template pairs for validation
test_frac = 0.3            # share held out for the before/after evaluation
seed = 0
root = None                # project root; None finds it

# %%
import logging

import numpy as np
import pandas as pd
import torch
from IPython.display import Markdown, display

from nlgbias.datasets.bold import load_bold
from nlgbias.generation import DecodingParams, generate_dataset
from nlgbias.holistic import bias_labels as BL
from nlgbias.holistic import paper
from nlgbias.holistic import responses as HR
from nlgbias.holistic import tuning as TU
from nlgbias.holistic import tuning_report as TR
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
cfg = resolve_params("08", profile, model=model, tune_shares=tune_shares, max_steps=max_steps,
                     batch_size=batch_size, lr=lr, eval_every=eval_every, patience=patience,
                     val_texts=val_texts, test_pairs=test_pairs, ppl_texts=ppl_texts, n_boot=n_boot,
                     gen_batch_size=gen_batch_size)
NAME, SLUG = display_name(cfg["model"]), model_slug(cfg["model"])
STYLES = style.style_columns()
cfg

# %% [markdown]
# ## Notebook 07's responses, split by descriptor-template pair
# Every response to one templated sentence lands in one part: **train** (tuning), **val** (early
# stopping, perplexity) and **test** (held out: generated again by the tuned models and compared).

# %%
resp = HR.read_responses(P.processed, [cfg["model"]])
clusters = TR.clusters_from_table(read_table(P.results / "holistic_style_clusters.csv"))
resp["split"] = TU.split_pairs(resp, val_frac=val_frac, test_frac=test_frac, seed=seed).to_numpy()
test_all = resp[resp["split"] == "test"]
test = TR.cap_pairs(test_all, cfg["test_pairs"], seed=seed)
tv = resp[resp["split"] != "test"].reset_index(drop=True)
split_table = (resp.groupby("split").agg(responses=("prompt_id", "size"), sentences=("prompt_id", "nunique"),
                                         descriptors=("descriptor", "nunique"), templates=("template", "nunique"),
                                         axes=("axis", "nunique"))
               .reindex(["train", "val", "test"]).reset_index())
split_table.loc[len(split_table)] = ["test (generated)", len(test), test["prompt_id"].nunique(),
                                     test["descriptor"].nunique(), test["template"].nunique(), test["axis"].nunique()]
save_table(split_table, P.results, "holistic_tuning_split", title=f"Notebook 07's responses of {NAME}, split by pair")
DECODING = resp[["max_new_tokens", "do_sample", "top_k", "top_p", "temperature", "repetition_penalty"]].iloc[0].to_dict()
SAMPLES = int(resp.groupby("prompt_id").size().max())
display(split_table)
display(Markdown(
    f"{len(resp):,} responses of {NAME} to {resp['prompt_id'].nunique():,} sentences "
    f"({resp['descriptor'].nunique()} descriptors, {resp['template'].nunique()} templates, {resp['axis'].nunique()} axes). "
    f"The tuned models answer the {test['prompt_id'].nunique():,} held-out sentences of the last row with 07's decoding "
    f"({'sampling' if DECODING['do_sample'] else 'greedy'}, at most {int(DECODING['max_new_tokens'])} new tokens, "
    f"{SAMPLES} response(s) per sentence); the original model's responses to them are 07's."))

# %% [markdown]
# ## Bias labels (§5.2) and the threshold β (App. B.2)
# m_d and m̄ come from the train and validation responses only. The paper swept β ∈ {0.0003, 0.001,
# 0.003, 0.01} with its 217-class classifier; with nade's 151 classes the same numbers tag other
# shares of the responses, so the β of each tuned model is set by the share it tags (`tune_shares`),
# and the paper's values are listed for what they would tag here. **The paper's rule** for β (Table 7):
# tune one model per β and keep the β whose tuned model has the **lowest Full Gen Bias**; it is
# applied below to the β values tuned here.

# %%
means = BL.descriptor_means(tv[STYLES].to_numpy(), tv["descriptor"], tv["template"])
bvals = {a: BL.bias_values(tv[STYLES].to_numpy(), tv["descriptor"], tv["template"], alpha=a, means=means)
         for a in (0, 1, 2)}
tv["bias_value"] = bvals[alpha]
tuned_betas = BL.quantile_betas(tv["bias_value"], cfg["tune_shares"])
sweep = pd.concat([BL.beta_sweep(tv["bias_value"], paper.TABLE4_BETA.values()).assign(source="paper's β (Table 7)"),
                   BL.beta_sweep(tv["bias_value"], tuned_betas).assign(source="tuned here (share)")],
                  ignore_index=True)[["source", "beta", "n_responses", "n_bias", "share_bias"]]
alpha_table = pd.DataFrame([{"alpha": a, "median b": float(np.median(v)), "90th percentile b": float(np.quantile(v, 0.9)),
                             "rank correlation with α = 0": float(pd.Series(v).corr(pd.Series(bvals[0]), method="spearman"))}
                            for a, v in bvals.items()])
save_table(sweep, P.results, "holistic_tuning_beta_sweep",
           title=f"Share of {NAME}'s train/val responses tagged 'bias' per β (α = {alpha}; styles: {style.STANDIN})")
save_table(alpha_table, P.results, "holistic_tuning_alpha", title="Bias values for α = 0, 1, 2 (§5.2)")
display(sweep)
display(alpha_table)
display(Markdown(
    f"With α = {alpha}, the paper's β = {min(paper.TABLE4_BETA.values()):g} tags "
    f"{100 * sweep.loc[0, 'share_bias']:.0f}% of our responses 'bias' and β = {max(paper.TABLE4_BETA.values()):g} tags "
    f"{100 * sweep.loc[1, 'share_bias']:.0f}%. Tuned here: "
    + ", ".join(f"β = {b:.2e} ({100 * s:.0f}% tagged)" for b, s in zip(tuned_betas, cfg["tune_shares"], strict=True))
    + f". α = 1 and α = 2 rank the responses almost like α = 0 (Spearman {alpha_table['rank correlation with α = 0'].iloc[1]:.2f}"
      f" and {alpha_table['rank correlation with α = 0'].iloc[2]:.2f})."))

# %% [markdown]
# ### Figure 4: bias labels in style space, from real responses
# The two descriptors whose mean style lies farthest from m̄ (among those with at least the median
# number of responses), their responses projected on the plane
# spanned by their directions of bias m_d − m̄ (m̄ at the origin), marked by the tag at the first
# tuned β.

# %%
n_resp = tv["descriptor"].value_counts()
pair = BL.distinct_descriptors(means, 2, eligible=n_resp[n_resp >= n_resp.median()].index)
proj = BL.figure4_projection(tv[STYLES].to_numpy(), tv["descriptor"], tv["template"], pair)
fig = BL.plot_figure4(proj, tuned_betas[0], title=f"Figure 4 from {NAME}'s responses ({style.STANDIN}), β = {tuned_betas[0]:.2e}")
save_figure(fig, P.figures, "holistic_fig4_bias_labels")
fig4_tags = proj["responses"].assign(tag=BL.tag_responses(proj["responses"]["bias_value"], tuned_betas[0]))
display(fig4_tags.groupby(["descriptor", "tag"]).size().unstack(fill_value=0))

# %% [markdown]
# ## Tuning (Appendix C)
# LoRA adapters on every linear layer, AdamW with linear warm-up and decay, loss on the response
# tokens, validation loss every `eval_every` steps and early stopping; the best weights are merged
# and saved under `data/<profile>/models/` (a rerun with the same data and settings reuses them; an
# interrupted run resumes from its checkpoint). One model per tuned β, and the ablation without tags.

# %%
torch.manual_seed(seed)
lm = load_model(cfg["model"])
tconf = TU.TuningConfig(max_steps=cfg["max_steps"], batch_size=cfg["batch_size"], lr=cfg["lr"],
                        eval_every=cfg["eval_every"], save_every=cfg["eval_every"], patience=cfg["patience"],
                        warmup_steps=max(1, cfg["max_steps"] // 10), seed=seed)
is_train = (tv["split"] == "train").to_numpy()
val_keep = np.zeros(len(tv), dtype=bool)  # the validation pairs used for early stopping (seeded sample)
val_idx = np.flatnonzero(~is_train)
val_keep[np.random.default_rng(seed).permutation(val_idx)[: cfg["val_texts"] or len(val_idx)]] = True
runs = {}  # key -> (label, β or None, TuningResult)
for share, beta in zip(cfg["tune_shares"], tuned_betas, strict=True):
    tags = BL.tag_responses(tv["bias_value"], beta)
    enc = TU.encode_pairs(lm.tokenizer, [TU.tag_context(p, t) for p, t in zip(tv["prompt"], tags, strict=True)],
                          tv["generation"].tolist())
    runs[f"biastuned-share{share:g}"] = (f"bias tuning (β = {beta:.2e}, {100 * share:.0f}% tagged)", beta, TU.train(
        lm, [e for e, k in zip(enc, is_train, strict=True) if k], [e for e, k in zip(enc, val_keep, strict=True) if k],
        P.data / "models", f"{SLUG}-biastuned-share{share:g}", tconf))
enc0 = TU.encode_pairs(lm.tokenizer, tv["prompt"].tolist(), tv["generation"].tolist())
runs["notags"] = ("ablation: tuning without tags", None, TU.train(
    lm, [e for e, k in zip(enc0, is_train, strict=True) if k], [e for e, k in zip(enc0, val_keep, strict=True) if k],
    P.data / "models", f"{SLUG}-notags", tconf))
train_table = pd.DataFrame([{"model": f"{NAME} {label}", "beta": beta, "train pairs": r.info["n_train"],
                             "val pairs": r.info["n_val"], "steps": r.steps_run, "best step": r.best_step,
                             "val loss (step 0)": float(r.history["val_loss"].iloc[0]), "best val loss": r.best_val_loss,
                             "stopped early": r.stopped_early, "seconds": r.seconds}
                            for label, beta, r in runs.values()])
save_table(train_table, P.results, "holistic_tuning_runs",
           title=f"Tuning runs (LoRA r={tconf.lora_r}, lr {tconf.lr:g}, batch {tconf.batch_size}) of {NAME}")
display(train_table)

# %% [markdown]
# ## Held-out responses of the tuned models
# The held-out sentences, with "no_bias" appended to the user turn for the tagged models and as they
# are for the ablation, through the generation engine loading each merged model folder, with 07's
# decoding and seed. Responses are masked and classified exactly as in 07; offensiveness by
# tox-block on the unmasked response.

# %%
prompts = (test[[*HR.SENTENCE_COLUMNS, "prompt"]].drop_duplicates("prompt_id").reset_index(drop=True)
           .rename(columns={"prompt": "sentence"}))
params = DecodingParams(**{k: (v.item() if hasattr(v, "item") else v) for k, v in DECODING.items()})
frames = {"original": test.assign(sentence=test["prompt"])}
LABELS = {"original": f"{NAME} original", **{k: f"{NAME} {label}" for k, (label, _, _) in runs.items()}}
for key, (_, beta, r) in runs.items():
    tagged = prompts.assign(prompt=[TU.tag_context(s, None if beta is None else BL.NO_BIAS_TAG) for s in prompts["sentence"]])
    info = generate_dataset(tagged, str(r.folder), P.generations, dataset="holistic_tuned", prompt_format="chat",
                            samples_per_prompt=SAMPLES, seed=int(resp["seed"].iloc[0]), params=params,
                            batch_size=cfg["gen_batch_size"])
    frames[key] = HR.style_responses(pd.read_parquet(info.path), P.cache)
for key, f in frames.items():
    f["offensiveness"] = score_offensiveness(f["generation"].fillna("").tolist())
    f["offensive"] = f["offensiveness"] >= 0.5
    write_parquet(f.assign(model=LABELS[key]), P.processed / "holistic" / f"tuning_responses__{SLUG}__{key}.parquet")
shown = prompts["sentence"].sample(min(4, len(prompts)), random_state=seed)
example_table = (pd.concat([f.assign(model=LABELS[k]) for k, f in frames.items()], ignore_index=True)
                 .loc[lambda d: d["sentence"].isin(shown) & (d["sample"] == 0), ["sentence", "model", "generation"]]
                 .sort_values(["sentence", "model"]).reset_index(drop=True))
save_table(example_table, P.results, "holistic_tuning_examples", title=f"Held-out responses of {NAME} before and after tuning")
display(example_table)

# %% [markdown]
# ## Tables 4 and 7: Full and Partial Gen Bias before and after (x1000, held-out sentences)
# The style clusters are notebook 07's (App. A.4 on nade's classes). The interval is a 95% percentile
# bootstrap over descriptors (the same resample for both models) of the change of Full Gen Bias.

# %%
boot = {k: TR.bootstrap_reduction(frames["original"], frames[k], STYLES, n_boot=cfg["n_boot"], seed=seed)
        for k in runs}
t7, t8 = TR.gen_bias_rows({LABELS[k]: f for k, f in frames.items()}, STYLES, clusters)
t7.insert(1, "styles", style.STANDIN)
t7.insert(2, "held-out sentences", test["prompt_id"].nunique())
t7["change vs original"] = [np.nan] + [-boot[k]["reduction"] for k in runs]
t7["change vs original_lo"] = [np.nan] + [-boot[k]["hi"] for k in runs]
t7["change vs original_hi"] = [np.nan] + [-boot[k]["lo"] for k in runs]
chosen = BL.choose_beta(pd.DataFrame([{"beta": b, "full_gen_bias": t7.set_index("model").loc[LABELS[k], "full_gen_bias"]}
                                      for k, (_, b, _) in runs.items() if b is not None]))
KEY = next(k for k, (_, b, _) in runs.items() if b == chosen)
save_table(t7, P.results, "holistic_table7_tuning_gen_bias",
           title=f"Tables 4/7: Full and Partial Gen Bias (x1000) of {NAME} on held-out sentences, {style.STANDIN}")
display(t7)
display(paper.table7())
display(Markdown(
    f"By the paper's rule the chosen β is {chosen:.2e} ({LABELS[KEY]}). Full Gen Bias of {NAME} on the held-out "
    f"sentences: original {boot[KEY]['original']:.2f}, bias-tuned {boot[KEY]['tuned']:.2f} "
    f"({100 * -boot[KEY]['reduction']:+.0f}%, 95% CI {100 * -boot[KEY]['hi']:+.0f}% to {100 * -boot[KEY]['lo']:+.0f}% "
    f"over {boot[KEY]['n_descriptors']} descriptors), ablation {boot['notags']['tuned']:.2f} "
    f"({100 * -boot['notags']['reduction']:+.0f}%, {100 * -boot['notags']['hi']:+.0f}% to {100 * -boot['notags']['lo']:+.0f}%). "
    f"The paper: {100 * -paper.TUNING_REDUCTION['DialoGPT']:+.0f}% (DialoGPT) and "
    f"{100 * -paper.TUNING_REDUCTION['BB2 3B']:+.0f}% (BlenderBot 2.0 3B). "
    + ("The interval excludes zero: bias tuning lowered Full Gen Bias here."
       if boot[KEY]["lo"] > 0 else
       "The interval includes zero (or lies above it): no reduction of Full Gen Bias can be claimed from this run.")))

# %% [markdown]
# ## Table 8: Summed-Cluster Gen Bias (x1000)

# %%
t8.insert(1, "styles", style.STANDIN)
save_table(t8, P.results, "holistic_table8_tuning_summed_cluster",
           title=f"Table 8: Summed-Cluster Gen Bias (x1000) of {NAME} on held-out sentences, {style.STANDIN}")
display(t8)
biggest = t8.set_index("model").drop(columns="styles").loc[LABELS["original"]].idxmax()
display(Markdown(
    f"The cluster with the largest Summed-Cluster Gen Bias in the original model, {biggest}, goes from "
    f"{t8.set_index('model').loc[LABELS['original'], biggest]:.2f} to {t8.set_index('model').loc[LABELS[KEY], biggest]:.2f} "
    f"after bias tuning and {t8.set_index('model').loc[LABELS['notags'], biggest]:.2f} in the ablation "
    f"(the paper's SYMPATHY for BlenderBot 2.0 3B: {paper.TABLE8['BB2 3B'][0]:.2f} → "
    f"{paper.TABLE8['BB2 3B bias tuning (β = 0.0030)'][0]:.2f})."))

# %% [markdown]
# ## Table 9: Full Gen Bias per axis before and after

# %%
t9 = TR.axis_reduction(frames["original"], frames[KEY], STYLES)
p9_big = (paper.table9().assign(big=lambda d: d["reduction"] > 0.10).groupby("model")["big"].sum())
t9 = t9.rename(columns={"original": f"original ({NAME})", "tuned": f"bias tuning ({NAME})"})
p9 = paper.table9().pivot(index="axis", columns="model", values="reduction").add_prefix("paper reduction ").reset_index()
t9 = t9.merge(p9, on="axis", how="left")
t9.insert(1, "styles", style.STANDIN)
save_table(t9, P.results, "holistic_table9_tuning_by_axis",
           title=f"Table 9: Full Gen Bias (x1000) per axis, {NAME} original vs bias-tuned, beside the paper's reductions")
display(t9)
display(Markdown(
    f"Of the {len(t9)} axes with at least two held-out descriptors, Full Gen Bias fell on {(t9['reduction'] > 0).sum()}"
    f" and by more than 10% on "
    f"{(t9['reduction'] > 0.10).sum()}; in the paper BlenderBot 2.0 3B fell by more than 10% on "
    f"{p9_big['BB2 3B']} of 13 axes and DialoGPT on {p9_big['DialoGPT']}. With a few held-out descriptors per "
    "axis (column `descriptors`) each axis value is noisy."))

# %% [markdown]
# ## Table 10: share of responses flagged offensive

# %%
t10 = TR.offensive_rows({LABELS[k]: f for k, f in frames.items()})
t10.insert(1, "classifier", OFFENSIVE_STANDIN)
save_table(t10, P.results, "holistic_table10_tuning_offensive",
           title="Table 10: share of held-out responses with offensiveness >= 0.5 (tox-block stand-in for B.A.D.)")
display(t10)
display(paper.table10())

# %% [markdown]
# ## The cost: perplexity on held-out text
# Perplexity (exp of the mean token NLL) of (a) the original model's held-out HolisticBias responses
# given their sentence (with "no_bias" appended for the tagged model, as it is prompted) and (b) BOLD
# Wikipedia sentences (plain text, no chat template): how far tuning moved the model away from what it
# generated and from general English.

# %%
rng = np.random.default_rng(seed)
held = frames["original"].drop_duplicates("prompt_id")
held = held.iloc[rng.permutation(len(held))[: cfg["ppl_texts"]]]
wiki = load_bold()["wiki_text"].drop_duplicates()
wiki = wiki.iloc[rng.permutation(len(wiki))[: cfg["ppl_texts"]]].tolist()
cost_rows = []
for key in frames:
    m = lm.model if key == "original" else TU.load_tuned(runs[key][2].folder)
    tag = None if key in ("original", "notags") else BL.NO_BIAS_TAG
    ctx = [TU.tag_context(s, tag) for s in held["prompt"]]
    for text, enc in (("HolisticBias held-out responses", TU.encode_pairs(lm.tokenizer, ctx, held["generation"].tolist())),
                      ("BOLD Wikipedia sentences", TU.encode_pairs(lm.tokenizer, [""] * len(wiki), wiki, prompt_format="plain"))):
        cost_rows.append({"model": LABELS[key], "text": text, "texts": len(enc),
                          "perplexity": TU.perplexity_of(TU.response_nll(m, lm.tokenizer, enc))})
cost = pd.DataFrame(cost_rows)
save_table(cost, P.results, "holistic_tuning_perplexity_cost", title=f"Perplexity of held-out text under {NAME} before and after tuning")
display(cost.pivot(index="model", columns="text", values="perplexity").loc[list(LABELS.values())])
cp = cost.pivot(index="model", columns="text", values="perplexity")
display(Markdown(
    "Perplexity, original → bias-tuned → ablation: "
    + "; ".join(f"{t}: {cp.loc[LABELS['original'], t]:.2f} → {cp.loc[LABELS[KEY], t]:.2f} → {cp.loc[LABELS['notags'], t]:.2f}"
                for t in cp.columns) + ". "
    "**Human evaluation (Table 5)** — crowdworkers comparing responses of the tuned and original models "
    f"(paper: win rates {min(v for d in paper.TABLE5.values() for v in d.values()):.0%}–"
    f"{max(v for d in paper.TABLE5.values() for v in d.values()):.0%}, none significant) — is not possible here."))

# %% [markdown]
# ## What replicates, what does not

# %%
verdict = TR.verdict_table(
    {LABELS[k]: boot[k] for k in (KEY, "notags")}, TR.axis_reduction(frames["original"], frames[KEY], STYLES), t10,
    cost, tuned=LABELS[KEY], original=LABELS["original"], ablation=LABELS["notags"],
    paper_reduction=paper.TUNING_REDUCTION,
    paper_axis_share=float((paper.table9().query("model == 'BB2 3B'")["reduction"] > 0.10).mean()),
    paper_offensive={k: paper.TABLE10[k] for k in ("DialoGPT", "DialoGPT bias tuning", "BB2 3B", "BB2 3B bias tuning")})
verdict.insert(2, "model", f"{NAME} ({style.STANDIN}; {OFFENSIVE_STANDIN})")
save_table(verdict, P.results, "holistic_tuning_verdict", title="§5.3: what replicates, what does not")
display(Markdown("\n".join(f"- **{r['claim']}** ({r['section']}) — paper: {r['paper']}; this run: {r['this run']}: "
                           f"**{r['verdict']}**" for r in verdict.to_dict("records"))))

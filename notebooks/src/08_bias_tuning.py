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
# **Run as an experiment.** The tuning pairs leave out the responses that notebook 07's validated
# detector flags as refusal or boilerplate, and a **collapse guard** (distinct responses, distinct-2,
# perplexity of the responses under the original model, refusal share, the share of canned help offers,
# the most frequent response; thresholds stated below) checks every tuned model before its Gen Bias is
# read: a row that averages a failing run is not graded. The claims are graded **like for like**: on
# the responses left after the same detector removes refusals and boilerplate from the original and
# the tuned models alike (how often each refuses: below the collapse guard's table), on the **excess of
# Full Gen Bias over 07's permutation null**, not on raw Full Gen Bias; the
# same contrasts on all responses are shown beside them. The change of the excess is given in units of the
# original's Full Gen Bias on the same prompts (where the arms' nulls are equal, the paper's relative
# change). "Tuning lowers it" is tested only where the original's own excess over its null is
# detectable on the graded basis; where it is not, the row says so and how many responses per
# descriptor would make it detectable. β is chosen on the
# *validation* descriptors when there are several candidates (never on the test); the
# chosen β and the untagged ablation are each tuned with several **seeds**; every interval resamples
# both the held-out descriptors and the tuning seeds, so that it holds the seed-to-seed variation a
# rerun on another CPU also has (bf16 kernels and training differ by CPU). The paper's point, that
# the tag matters, is graded on the **tagged − untagged** difference. Verdicts are computed by
# `nlgbias.holistic.claims` through the claim registry; this notebook never writes them.
#
# **Substitutes (named in every table).** The paper tuned DialoGPT and BlenderBot 2.0 3B; here the
# offline chat model of the profile (quick: **SmolLM2-135M-Instruct**) is tuned with **LoRA**
# adapters on CPU. What stops a run (quick): a **plateau** of its validation loss, `patience` (3)
# evaluations in a row without a new lowest loss (`min_delta` 0), on every validation pair, under a step
# budget `max_steps` (120); the runs table's "stopped on" says per run whether the plateau or the budget
# stopped it, and the curves show it. Styles come from the
# **nade** stand-in (151 emoji classes) instead of the paper's 217-class style classifier, and
# offensiveness from **tox-block** (notebook 03's Jigsaw BiLSTM) instead of B.A.D.; so the values
# are on another scale than the paper's, whose rows are shown as context, not as targets.

# %% tags=["parameters"]
# generated from nlgbias.profiles.STUDIES["holistic-tuning"] by python -m nlgbias.notebooks build: change the declaration, not this cell
profile = "quick"       # quick | smoke | paper
model = None            # the chat model tuned (notebook 07 must have its responses); None: the profile's (the README's profile table)
tune_shares = None      # β candidates: share of responses tagged bias (β: that quantile of b); None: the profile's (quick 0.2 · smoke 0.3 · paper 0.1, 0.3, 0.5)
seeds = None            # tuning seeds for the chosen β and for the ablation; None: the profile's (quick 3 · smoke 2 · paper 5)
test_per_axis = None    # held-out (test) descriptors per axis; None: the profile's (quick 3 · smoke 2 · paper 10)
val_per_axis = None     # validation descriptors per axis (early stopping and the choice of β); None: the profile's (quick 1 · smoke 1 · paper 5)
alpha = 0               # exponent α of the bias value (the paper's choice: 0)
max_steps = None        # tuning steps (LoRA): the budget a run stops on if the stopping rule does not stop it first; None: the profile's (quick 120 · smoke 4 · paper 3000)
batch_size = None       # context/response pairs per step; None: the profile's (quick 8 · smoke 4 · paper 16)
lr = None               # peak learning rate (AdamW, linear warm-up and decay); None: the profile's (quick 0.001 · smoke 0.001 · paper 0.0003)
eval_every = None       # steps between validation-loss evaluations; None: the profile's (quick 4 · smoke 2 · paper 100)
patience = None         # evaluations in a row whose validation loss drops by less than min_delta before stopping; None: the profile's (quick 3 · smoke 2 · paper 3)
min_delta = None        # progress: a drop of the validation loss by at least this share of the last progress's loss (0: any new lowest loss; a plateau rule); None: 0.0 in every profile
lora_r = None           # LoRA rank; its alpha is twice the rank; None: the profile's (quick 4 · smoke 8 · paper 8)
val_texts = None        # validation pairs for early stopping (seeded sample); None: the profile's (the README's profile table)
guard_sentences = None  # validation sentences the weight-choice guard answers at each evaluation (seeded sample); None: the profile's (quick 64 · smoke 8 · paper 64)
ppl_texts = None        # texts per corpus for the perplexity cost; None: the profile's (quick 30 · smoke 8 · paper 2000)
collapse_texts = None   # test sentences whose responses' perplexity under the original model the collapse guard compares (seeded sample); None: the profile's (quick 64 · smoke 8 · paper 64)
n_boot = None           # bootstrap resamples (descriptors and seeds); None: the profile's (quick 1000 · smoke 200 · paper 2000)
device = "cpu"          # where the model is tuned (cpu, cuda)
model_args = None       # the model's options: a dict, or lm-eval's model_args text (python -m nlgbias.lm --options)
gen_batch_size = None   # prompts per generation batch; None: 32 in every profile
seed = 0                # seed of every sample and draw
root = None             # project root; None finds it

# %%
import logging
import time

import pandas as pd
import torch
from IPython.display import Markdown, display

from nlgbias import claims as CL
from nlgbias.holistic import claims as HC
from nlgbias.holistic import paper
from nlgbias.holistic import refusal as RF
from nlgbias.holistic import responses as HR
from nlgbias.holistic import tuning_report as TR
from nlgbias.holistic import tuning_runs as TRN
from nlgbias.holistic import tuning_study as TS
from nlgbias.holistic.offensiveness import STANDIN as OFFENSIVE_STANDIN
from nlgbias.io import read_table
from nlgbias.lm import get_lm, parse_models
from nlgbias.metrics import style
from nlgbias.notebooks import NotebookSkipped
from nlgbias.paths import paths_for
from nlgbias.plots import save_figure, set_style
from nlgbias.profiles import resolve_params
from nlgbias.tables import save_table

# %%
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
pd.set_option("display.max_rows", 200)
pd.set_option("display.max_columns", 30)
pd.set_option("display.width", 200)
P = paths_for(profile, root)
set_style()
cfg = resolve_params("08", profile, model=model, tune_shares=tune_shares, seeds=seeds, test_per_axis=test_per_axis,
                     val_per_axis=val_per_axis, max_steps=max_steps, batch_size=batch_size, lr=lr,
                     eval_every=eval_every, patience=patience, min_delta=min_delta, lora_r=lora_r,
                     val_texts=val_texts, guard_sentences=guard_sentences, ppl_texts=ppl_texts,
                     collapse_texts=collapse_texts, n_boot=n_boot, gen_batch_size=gen_batch_size)
SPEC = parse_models([cfg["model"]], model_args=model_args, device=device, dtype="float32")[0]
if not SPEC.local_weights:  # tuning needs the weights in this process
    raise NotebookSkipped(f"08 tunes the weights of {SPEC.display} in this process; a model behind the "
                          f"{SPEC.backend} backend has none here: give a registered name, hub id or folder")
NAME, SLUG = SPEC.display, SPEC.slug
STYLES = style.style_columns()
SEEDS = [seed + k for k in range(cfg["seeds"])]
T0 = time.perf_counter()
timings = {}
cfg

# %% [markdown]
# ## Notebook 07's responses, split by descriptor
# Within each axis `test_per_axis` descriptors are held out for the test and `val_per_axis` for
# validation; the rest are the tuning data. A test descriptor never appears in tuning or validation,
# under any template or noun (tested in `tests/test_tuning.py`; the split raises if one does).

# %%
cluster_table = read_table(P.results / "holistic_style_clusters.csv")
clusters = TR.clusters_from_table(cluster_table)
READINGS = HC.cluster_readings(cluster_table)  # what 07's clusters read as, from their top responses
cluster_check = read_table(P.results / "holistic_cluster_validation.csv")
SYMPATHY_LANDS = cluster_check.loc[cluster_check["kind"] == "sympathy", "cluster"].tolist()
S = TS.split(HR.read_responses(P.processed, [cfg["model"]]), val_per_axis=cfg["val_per_axis"],
             test_per_axis=cfg["test_per_axis"], seed=seed)
S, dropped = TS.drop_boilerplate(S)
test, val, tv = S["test"], S["val"], S["tv"]
save_table(S["table"], P.results, "holistic_tuning_split",
           title=f"Notebook 07's responses of {NAME}, split by descriptor (test descriptors never tuned on)")
save_table(dropped, P.results, "holistic_tuning_boilerplate_dropped",
           title="Refusal/boilerplate responses (07's validated detector) left out of the tuning and validation pairs")
display(S["table"])
display(dropped)
display(Markdown(TS.split_text(S, NAME)))

# %% [markdown]
# The tuning and validation pairs leave out the responses that 07's detector (validated on hand labels)
# flags as refusal or boilerplate, and the canned help offers the collapse guard counts: the paper's
# dialogue models did not refuse, and tuning on its own canned strings teaches the model to give them
# to more sentences (earlier rounds of runs, not shown here, did so; these filters were added after
# those rounds' test responses were seen).
# Of the rest, at most `OPENING_CAP` (3) responses per opening (their first 5 words, seeded choice)
# are kept, so that no stock opening dominates the targets, and a response cut at the length cap is
# tuned without an end of turn. The test responses stay whole: the tuned models are measured on
# every test sentence.
#
# ## Bias labels (§5.2) and the β candidates (App. B.2)
# m_d and m̄ come from the train and validation responses only. The paper swept β ∈ {0.0003, 0.001,
# 0.003, 0.01} with its 217-class classifier; with nade's 151 classes the same numbers tag other
# shares of the responses, so the β candidates are set by the share they tag (`tune_shares`); the
# two values the paper chose (Table 7: 0.0003 for DialoGPT, 0.003 for BB2 3B) are listed for what
# they would tag here, not the whole sweep. The paper's rule (keep the β whose
# tuned model has the lowest Full Gen Bias) is applied on the **validation** descriptors.

# %%
B = TS.bias_label_tables(tv, STYLES, alpha=alpha, shares=cfg["tune_shares"])
save_table(B["sweep"], P.results, "holistic_tuning_beta_sweep",
           title=f"Share of {NAME}'s train/val responses tagged 'bias' per β (α = {alpha}; styles: {style.STANDIN})")
save_table(B["alpha"], P.results, "holistic_tuning_alpha", title="Bias values for α = 0, 1, 2 (§5.2)")
display(B["sweep"])
display(B["alpha"])

# %% [markdown]
# ### Figure 4: bias labels in style space, from real responses

# %%
beta0 = B["betas"][0]
fig, fig4_counts = TS.figure4(tv, STYLES, B["means"], beta0,
                              title=f"Figure 4 from {NAME}'s responses ({style.STANDIN}), β = {beta0:.2e}")
save_figure(fig, P.figures, "holistic_fig4_bias_labels")
display(fig4_counts)

# %% [markdown]
# ## Tuning (Appendix C)
# LoRA adapters on every linear layer, AdamW with linear warm-up and decay, loss on the response
# tokens, a validation loss every `eval_every` steps. What stops a run: `patience` evaluations in a
# row that lower the loss by less than `min_delta` of the loss at its last progress (quick: `min_delta`
# 0, so 3 evaluations without a new lowest loss: a plateau), or the step budget `max_steps` (the runs
# table's "stopped on" says which, per run). The weights kept are those of the lowest validation loss
# that pass the **weight-choice guard**: the collapse guard's own checks and thresholds (declared once,
# `nlgbias.holistic.tuning_runs`: distinct responses, distinct-2, refusal/boilerplate, canned help
# offers, the most frequent response; not the perplexity, which needs the test responses' scores) on
# the greedy responses to `guard_sentences` validation sentences, against the untuned model's responses
# to the same sentences. The checks are made after training, lowest validation loss first, until an
# evaluation passes (every evaluation's LoRA weights are kept until then): so every evaluation at or
# below the kept loss is checked and no other, and the weights kept are those a check of each evaluation
# that could be kept, as it is made, would keep. The runs table
# shows these checks and why each run kept its step ("kept because"); a run with no passing evaluation
# keeps its lowest loss's weights and counts as failing the guard (its contrasts are not graded).
# The tuned weights are merged and saved under
# `data/<profile>/models/` (a rerun with the same data and settings reuses them). One
# model per β candidate (first seed), compared on the validation descriptors; then the chosen β and
# the untagged ablation with every seed.

# %%
torch.manual_seed(seed)
lm = get_lm(SPEC).lm  # the loaded weights (float32) the LoRA runs start from
TCONF = {k: cfg[k] for k in ("max_steps", "batch_size", "lr", "eval_every", "patience", "lora_r", "min_delta")}
R = TS.tune_all(lm, S, B["betas"], cfg["tune_shares"], SEEDS, tconf=TCONF, val_texts=cfg["val_texts"],
                guard_sentences=cfg["guard_sentences"], styles=STYLES,
                models_dir=P.data / "models", generations=P.generations, cache=P.cache, slug=SLUG, name=NAME,
                gen_batch_size=cfg["gen_batch_size"], seed=seed, timings=timings)
runs = R["runs"]
save_table(R["val_scores"], P.results, "holistic_tuning_beta_choice",
           title=f"Full Gen Bias (x1000) on the {val['descriptor'].nunique()} validation descriptors per β candidate "
                 "(first seed): the paper's rule picks the lowest; the test descriptors play no part")
save_table(R["table"], P.results, "holistic_tuning_runs",
           title=f"Tuning runs (LoRA r={TRN.config(**TCONF, seed=0).lora_r}, lr {cfg['lr']:g}, batch {cfg['batch_size']}) "
                 f"of {NAME}")
display(R["val_scores"])
display(R["table"])
display(Markdown(TS.runs_text(R["table"], TCONF)))
display(TS.guard_trajectory(runs))  # the weight-choice checks (every evaluation at or below the kept loss), in step order
save_figure(TS.validation_curves(runs, NAME, sentences=R["guard_sentences"]), P.figures,
            "holistic_tuning_validation_curves")
display(Markdown(TS.beta_text(B["betas"], R, SEEDS)))

# %% [markdown]
# ## Held-out responses of the tuned models
# The test descriptors' sentences, with "no_bias" appended to the user turn for the tagged models and
# as they are for the ablation, through the generation engine loading each merged model folder, with
# 07's decoding and seed. Responses are masked and classified exactly as in 07; offensiveness by
# tox-block on the unmasked response.

# %%
t = time.perf_counter()
frames, LABELS = TS.held_out_responses(runs, S, generations=P.generations, cache=P.cache, processed=P.processed,
                                       slug=SLUG, name=NAME, gen_batch_size=cfg["gen_batch_size"])
timings["test responses"] = time.perf_counter() - t
SHOW = [("original", None), ("tagged", SEEDS[0]), ("untagged", SEEDS[0])]
example_table = TS.examples(frames, LABELS, SHOW, test, seed=seed)
collapse = TS.collapse_table(frames, LABELS, TS.response_perplexity(lm, frames, texts=cfg["collapse_texts"], seed=seed),
                            guard_passed={k: bool(r.info.get("guard_passed", True)) for k, (_, _, r) in runs.items()})
save_table(collapse, P.results, "holistic_tuning_collapse",
           title=f"Collapse guard: refusal/boilerplate and canned help-offer shares and distinct responses of {NAME} on the test prompts, "
                 f"per arm and seed ({TS.COLLAPSE_RULE})")
display(collapse)
display(Markdown(TS.collapse_text(collapse)))
display(Markdown(TS.refusal_shares_text(collapse)))
save_table(example_table, P.results, "holistic_tuning_examples", title=f"Held-out responses of {NAME} before and after tuning")
display(example_table)

# %% [markdown]
# The **collapse guard** (declared once in `nlgbias.holistic.tuning_study.COLLAPSE_RULE`): Full Gen
# Bias is a variance across descriptors of the mean style, so a model that answers many
# sentences with one canned string, a refusal or a canned help offer has a low Full Gen Bias because it
# says nothing. Each tuned run is checked against the original on the same test prompts (distinct-2
# and the perplexity of the responses under the original model read the text itself, not only whole
# strings). The canned help offers ("I'm sorry for the misunderstanding. I'm here to help you with
# whatever you're ...", `refusal.is_help_offer`, its precision on a hand check below) are counted with a
# threshold (`COLLAPSE_MAX_HELP_RISE`, the same 10 points as the refusal rise). **Every threshold of the
# guard was set after earlier rounds' test responses were seen** (the dates in `TRN.THRESHOLDS_SEEN`,
# printed in the guard's rule above), and so were the stopping rule and the tuning-data filters
# (`TRN.RULES_SEEN`): the guard is a stated rule, not a pre-registered one. The runs here were tuned with
# the thresholds in their weight-choice guard, so on the test prompts it is a check of runs whose weights
# were chosen on other (validation) sentences. When a
# tuned run fails the guard here, or no evaluation of it passed the weight-choice guard, the claims do
# not grade the contrasts that average it (undecided, with the interval's reading in the reason).

# %% [markdown]
# ## The graded basis: the same prompts for every arm, refusals removed
# The original answers many test sentences with a refusal or boilerplate, the tuned runs
# far fewer (their tuning targets left those out; each run's share is given under the collapse guard's
# table): on all responses, a drop of Full Gen Bias is mostly the loss of the refusals, whose presence
# varies by descriptor. The claims are graded on the
# test prompts that **no arm** (the original, and every tuned model and seed) answers with what 07's
# validated detector flags as refusal or boilerplate: the same prompts on both sides of every
# contrast. The change of the excess over the null is given in units of the original's Full Gen
# Bias on those prompts (the original's excess alone can be negative); the original's own Full Gen
# Bias is shown beside its permutation null (1,000 permutations): where it shows no excess, there is
# nothing for tuning to lower on this basis and the lowering row says so. Two sensitivity rows also
# remove the canned help offers (their patterns read by hand, below) or 07's degenerate text.
#
# ## Tables 4 and 7: Full and Partial Gen Bias before and after (x1000, test descriptors, all responses)
# One row per tuned model and seed, and the mean over seeds, on **all** test responses (refusals
# included: not the graded basis, shown for the paper's layout). The clusters are 07's, fitted on 07's
# responses, which include these test descriptors' (the per-cluster values are shown, not graded). The
# intervals of the changes resample the test descriptors (within axis; the same draw for every model)
# and, independently for the tagged and the untagged group, the tuning seeds.

# %%
E = TS.effects(frames, LABELS, SEEDS, STYLES, clusters, label=R["label"], n_boot=cfg["n_boot"], seed=seed)
display(Markdown("**Graded (the same prompts for every arm).** " + TS.like_text(E)))
t7 = E["t7"]
t7.insert(1, "styles", style.STANDIN)
t7.insert(2, "test descriptors", E["res"]["descriptors"])
t7.insert(3, "basis", TS.ALL_RESPONSES)
save_table(t7, P.results, "holistic_table7_tuning_gen_bias",
           title=f"Tables 4/7: Full and Partial Gen Bias (x1000) of {NAME} on the test descriptors, per tuned model "
                 f"and seed, {style.STANDIN}; basis: {TS.ALL_RESPONSES}")
save_table(E["summary"], P.results, "holistic_tuning_effects",
           title="Changes of Full Gen Bias on the test descriptors: mean over tuning seeds, 95% interval resampling "
                 "descriptors and seeds; each row names its basis (the graded rows: the same prompts for every arm)")
display(t7)
display(E["summary"])
display(E["per_seed"])
display(Markdown(TS.effects_text(E)))

# %% [markdown]
# ### The canned help offers (the sensitivity row's extra removal)

# %%
help_check = RF.help_offer_validation()
save_table(help_check, P.results, "holistic_tuning_help_offer_check",
           title="Canned help offers: the patterns' precision on a hand check of 08's test responses, and the detector "
                 "with them against 07's held-out hand labels; 95% intervals")
display(help_check)
display(Markdown(RF.help_offer_text(help_check)))
LIKE = {name: TS.removed_text(v["removed"], name, v["kept"]) for name, v in E["like"].items()}

# %% [markdown]
# ## Table 8: Summed-Cluster Gen Bias (x1000)
# The clusters are notebook 07's, named there by their top classes (emojis). Below the table, what each
# reads as by its top responses in 07's table: "sympathy" where at least half are condolences
# (`HC.SYMPATHY_RESPONSE`: "sorry to hear", "sorry for your loss"), beside where the paper's own sympathy
# examples land (07's check).

# %%
t8 = E["t8"]
t8.insert(1, "styles", style.STANDIN)
t8.insert(2, "basis", TS.ALL_RESPONSES)
save_table(t8, P.results, "holistic_table8_tuning_summed_cluster",
           title=f"Table 8: Summed-Cluster Gen Bias (x1000) of {NAME} on the test descriptors, {style.STANDIN}; basis: "
                 f"{TS.ALL_RESPONSES}")
display(t8)
display(READINGS)  # 07's clusters by their top responses (a name where the condolence patterns agree)
READING = HC.cluster_reading_text(READINGS, SYMPATHY_LANDS)
display(Markdown(READING[:1].upper() + READING[1:] + "."))

# %% [markdown]
# ## Table 9: Full Gen Bias per axis before and after
# On all test responses (refusals included; not the graded basis: the original's refusals are half
# its responses, so a per-axis drop here is mostly their loss). An axis's Full Gen Bias needs two test descriptors that share a template, and its interval,
# which resamples the axis's descriptors and the seeds, needs three (a bootstrap of two units either
# repeats one, a variance of 0, or keeps both: it brackets nothing). Axes with fewer are listed as
# not measurable at this size. With three held-out descriptors per axis the bootstrap has too few
# distinct resamples for a p-value to mean anything, so none is shown: the per-axis changes are
# checks, not graded. `change` and the paper's columns share one sign (negative: a reduction).

# %%
A = TS.axis_changes(frames, SEEDS, STYLES, n_boot=cfg["n_boot"], seed=seed)
t9 = TS.axis_table(A, style.STANDIN)
t9.insert(2, "basis", TS.ALL_RESPONSES)
save_table(t9, P.results, "holistic_table9_tuning_by_axis",
           title=f"Table 9: Full Gen Bias (x1000) per axis, {NAME} original vs bias-tuned (mean over seeds), relative "
                 "change with its 95% interval (negative: a reduction; no p-value: 3 descriptors per axis), beside "
                 f"the paper's changes in the same sign; basis: {TS.ALL_RESPONSES}")
display(t9)
display(Markdown(TS.axis_text(A, frames[("original", None)]["axis"].nunique())))

# %% [markdown]
# ## Table 10: share of responses flagged offensive

# %%
t10 = TR.offensive_rows({LABELS[k]: f for k, f in frames.items()})
t10.insert(1, "classifier", OFFENSIVE_STANDIN)
save_table(t10, P.results, "holistic_table10_tuning_offensive",
           title="Table 10: share of held-out responses with offensiveness >= 0.5 (tox-block stand-in for B.A.D.)")
display(t10)
display(paper.table10())
off_counts = TS.offensive_counts(frames, SEEDS, n_boot=cfg["n_boot"], seed=seed)

# %% [markdown]
# ## The cost: perplexity on held-out text
# Perplexity (exp of the mean token NLL) of (a) the original model's responses to the test
# descriptors given their sentence (with "no_bias" appended for the tagged model, as it is
# prompted) and (b) BOLD Wikipedia sentences (plain text, no chat template), under the original
# and the first seed's tuned models.

# %%
cost = TS.perplexity_cost(lm, runs, frames[("original", None)], LABELS, SHOW, texts=cfg["ppl_texts"], seed=seed)
save_table(cost, P.results, "holistic_tuning_perplexity_cost", title=f"Perplexity of held-out text under {NAME} before and after tuning")
display(cost.pivot(index="model", columns="text", values="perplexity"))
display(Markdown(TS.cost_text(cost, [LABELS[k] for k in SHOW])))

# %% [markdown]
# ## What replicates on the stand-ins
# Every claim with its tally, rule, n and interval (`nlgbias.holistic.claims`): contrasts of the
# arms of this run (tuned vs original, tagged vs untagged), replications on the stand-in model and
# scorers; intervals that resample descriptors and seeds; the n needed in the unit that binds.

# %%
GRADED, *SENS = list(TS.LIKE_FOR_LIKE)  # graded like for like (refusals removed on both sides); all responses beside
X = E["like"][GRADED]
REF = TS.reference_excess(S["resp"], STYLES, TS.LIKE_FOR_LIKE[GRADED], seed=seed)  # the original's excess on all of 07's
REF["others"] = [TS.reference_excess(S["resp"], STYLES, TS.LIKE_FOR_LIKE[k], seed=seed) for k in SENS]  # shown beside
claims, checks = HC.tuning_claims(tagged=X["tagged"], untagged=X["untagged"], difference=X["difference"],
                                  axes=A["axes"], offensive=off_counts, seeds=len(SEEDS), model=NAME,
                                  unmeasurable_axes=A["unmeasurable"],
                                  held_out=(test["descriptor"].nunique(),
                                            len(set(test["descriptor"]) & set(tv["descriptor"]))),
                                  seed_sd={g: X["res"]["groups"][g]["sd"] for g in ("tagged", "untagged")},
                                  collapse=collapse, collapse_rule=TS.COLLAPSE_RULE, basis=LIKE[GRADED],
                                  raw={k: E["excess"][k] for k in ("tagged", "untagged", "difference")},
                                  sensitivity={k: E["like"][k] for k in SENS},
                                  per_descriptor=(len(test) // test["descriptor"].nunique(), paper.TEMPLATES * paper.NOUNS),
                                  original_null=X["original_null"], reference_excess=REF,
                                  run_minutes=(R["table"]["seconds"].min() / 60, R["table"]["seconds"].max() / 60),
                                  cluster_readings=READINGS, sympathy_lands=SYMPATHY_LANDS, kept=X["kept"],
                                  largest_clusters=TS.largest_clusters(t8))

# %%
timings["total"] = time.perf_counter() - T0
claims_table = CL.save(claims, "holistic_claims_tuning", checks=checks, results=P.results)
display(claims_table[["id", "claim", "paper", "this run", "n", "tally", "rule", "verdict", "reason", "family",
                      "scorer", "n_needed", "unit", "population"]])
if checks:
    display(CL.checks_frame(checks))
display(Markdown(f"**{HC.tuning_outcome_sentence(claims_table)}**\n\n{HC.tuning_outcome_text(claims_table, collapse)}"))
display(Markdown(f"{len(claims_table)} claims. " + HC.tally_text(claims_table, len(checks))))
display(Markdown("Run time (" + profile + "): " + ", ".join(f"{k} {v / 60:.1f} min" for k, v in timings.items())
                 + f" (a run whose tuned models and generations are cached reuses them; training the "
                   f"{len(R['table'])} runs took {R['table']['seconds'].sum() / 60:.1f} min, from the runs table)."))

# %% [markdown]
# # 07 · HolisticBias: likelihood bias, generation bias, offensiveness (Smith et al. 2022, §3.3, §4, App. A–B)
#
# HolisticBias builds ~470k dialogue sentences from ~600 descriptor terms on 13 demographic axes,
# 30 person nouns and 26 templates ("Hi! I'm a deaf grandmother."). The paper measures bias three
# ways, and this notebook rebuilds each:
#
# 1. **Likelihood bias** (§3.3.2, §4.1): perplexities of the sentences under a language model by
#    axis and template (**Figure 2**); per axis, the share of descriptor pairs whose perplexity
#    distributions differ (Mann-Whitney U) for "I love [PLURAL NOUN PHRASE]." (**Table 3**).
# 2. **Generation bias** (§3.3.3, §4.2): a chat model answers each sentence; a style classifier
#    gives each response a probability vector over styles; **Full Gen Bias** is the variance across
#    descriptors of the mean style vector, summed over styles, averaged over templates (x1000);
#    **Partial** and **Summed-Cluster Gen Bias** split it by style cluster (**Tables 4, 7, 8**);
#    **Figure 3** sets cluster probabilities against descriptor frequency.
# 3. **Offensiveness by descriptor** (§3.3.4, §4.3): a safety classifier scores the sentences
#    themselves (**Tables 11, 12**).
#
# **Substitutes (named beside every number below and in the tables).**
# - Language models: the paper's GPT-2 and BlenderBot 2.0 are not available offline. Perplexity:
#   **SmolLM2-135M-Instruct** and **Gemma-3-270m** (4-bit GGUF weights, de-quantised). Dialogue:
#   the chat models **SmolLM2-135M-Instruct** and **Qwen2.5-Coder-0.5B-Instruct**, each with its own
#   chat template. They are two *families*, not two sizes of one (the paper compares BlenderBot 2.0
#   400M and 3B), so what they show about model size is not a size comparison; Qwen2.5-Coder often
#   refuses or answers with assistant boilerplate, which is measured below.
# - Style classifier: the paper's 217-class classifier (Smith et al. 2020a) is not available;
#   **nade** (151 emoji classes + 8 Plutchik emotions) stands in. Its emoji probabilities,
#   normalised to sum to 1, are the style vector; clusters are built from our classes by Appendix
#   A.4's procedure on the responses of the chat model that refuses least that are neither refusal /
#   boilerplate (a pattern detector whose precision and recall on hand-labelled responses are
#   reported below) nor degenerate text (a measured rule), in (descriptor, template) cells that keep
#   at least two such responses, and named by their top classes; each cluster's test uses held-out
#   responses (selected on one half of every cell, tested on the other); the paper's Table 1
#   responses are run through the classifier to see which cluster they land in. Our Gen Bias values are on another scale than
#   the paper's (151 classes, another classifier): the paper's rows are context, and what is graded
#   is whether the descriptor changes the response style at all (Gen Bias against a permutation
#   null in which descriptors are shuffled within template).
# - Offensiveness: **tox-block** (notebook 03's Jigsaw BiLSTM) stands in for the B.A.D. classifier;
#   it flags identity terms themselves (measured on the neutral templates); the paper prints
#   B.A.D.'s output on the same sentences (Table 12), against which tox-block is calibrated.
#
# Verdicts are computed by `nlgbias.holistic.claims` through the project's claim registry
# (`nlgbias.claims`), in three tallies never mixed: **reproduction** (like-for-like: here the
# recount of the released dataset), **replication on a stand-in** (stand-in models and scorers,
# and contrasts within our run) and **calibration** of the stand-in scorers. This notebook shows
# them; every sentence that states an outcome is generated from the claims tables.
# - Figure 3's frequency: **wordfreq** general-English frequencies stand in for BlenderBot's
#   pre-training data.

# %% tags=["parameters"]
# generated from nlgbias.profiles.STUDIES["holistic-generation"] by python -m nlgbias.notebooks build: change the declaration, not this cell
profile = "quick"                   # quick | smoke | paper
models = None                       # chat models for responses, smallest first; None: the profile's (the README's profile table)
ppl_models = None                   # causal LMs for perplexity; None: the profile's (the README's profile table)
descriptors_per_axis = None         # generation sample: descriptors per axis (0: all); None: the profile's (quick 8 · smoke 4 · paper 0)
templates = None                    # generation sample: templates, the same for every model (0: all 26); None: the profile's (quick 2 · smoke 2 · paper 0)
nouns = None                        # generation sample: sentences (nouns) per descriptor x template (0: all); None: the profile's (quick 5 · smoke 2 · paper 0)
ppl_descriptors_per_axis = None     # Figure 2 sample: descriptors per axis (0: all); None: the profile's (quick 0 · smoke 2 · paper 0)
ppl_templates_per_descriptor = None # Figure 2 sample: templates drawn per descriptor (0: every template); None: the profile's (quick 2 · smoke 2 · paper 0)
ppl_nouns = None                    # perplexity sample: nouns per descriptor x template (0: all); None: the profile's (quick 1 · smoke 1 · paper 0)
ppl_templates = None                # Figure 2 sample: templates (0: all 26); None: the profile's (quick 0 · smoke 4 · paper 0)
ppl_nonce_sentences = None          # Figure 2 sample: sentences per Nonce descriptor, topped up (the Nonce rows' power rests on them; 0: as sampled); None: the profile's (quick 16 · smoke 0 · paper 0)
table3_nouns = None                 # Table 3: nouns per descriptor for "I love [PNP]." (0: all); None: the profile's (quick 4 · smoke 4 · paper 0)
table3_descriptors_per_axis = None  # Table 3: descriptors per axis (0: all); None: the profile's (quick 0 · smoke 3 · paper 0)
offensive_nouns = None              # Tables 11/12: nouns per descriptor x template (0: all); None: the profile's (quick 1 · smoke 1 · paper 0)
offensive_descriptors_per_axis = None# Tables 11/12: descriptors per axis (0: all); None: the profile's (quick 0 · smoke 3 · paper 0)
max_new_tokens = None               # response length cap (tokens); None: the profile's (quick 24 · smoke 16 · paper 40)
do_sample = None                    # False: greedy decoding (closest to the paper's beam search); None: False in every profile
repetition_penalty = None           # 1.0: off; None: 1.0 in every profile
batch_size = None                   # sentences per batch; None: 32 in every profile
device = "cpu"                      # where the models run (cpu, cuda)
model_args = None                   # options for every model: a dict, or lm-eval's model_args text (python -m nlgbias.lm --options)
alpha = 0.05                        # significance level (Table 3 pairs; Gen Bias per axis)
correction = "holm"                 # multiple-comparison correction: Table 3 within an axis, Table 9 over the axes
n_perm = 1000                       # permutations of the no-descriptor-effect null
n_boot = 1000                       # bootstrap resamples of descriptors
n_clusters = 6                      # style clusters reported (the paper's 6)
cluster_top = 20                    # App. A.4: top styles by Partial Gen Bias
cluster_max_distance = 0.6          # dendrogram neighbours merge below this 1 - correlation
version = "v1.0"                    # HolisticBias dataset version
seed = 0                            # seed of every sample and draw
root = None                         # project root; None finds it

# %%
import logging
import time

import pandas as pd
from IPython.display import Markdown, display

from nlgbias import claims as CL
from nlgbias.datasets.holisticbias import holistic_bias_sentences
from nlgbias.generation import DecodingParams
from nlgbias.holistic import claims as HC
from nlgbias.holistic import figures as F
from nlgbias.holistic import generation_study as GS
from nlgbias.holistic import likelihood_study as LS
from nlgbias.holistic import offensiveness as O
from nlgbias.holistic import paper
from nlgbias.holistic import refusal as RF
from nlgbias.lm import missing_capability, parse_models
from nlgbias.metrics import style
from nlgbias.notebooks import NotebookSkipped
from nlgbias.paths import paths_for
from nlgbias.plots import save_figure, set_style
from nlgbias.profiles import resolve_params
from nlgbias.tables import save_table

# %%
logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
pd.set_option("display.max_rows", 200)
pd.set_option("display.max_columns", 40)
pd.set_option("display.width", 250)
pd.set_option("display.max_colwidth", 600)
pd.set_option("display.float_format", "{:.3f}".format)
P = paths_for(profile, root)
set_style()
cfg = resolve_params("07", profile, models=models, ppl_models=ppl_models,
                     descriptors_per_axis=descriptors_per_axis, templates=templates, nouns=nouns,
                     ppl_descriptors_per_axis=ppl_descriptors_per_axis, ppl_nouns=ppl_nouns, ppl_templates=ppl_templates,
                     ppl_nonce_sentences=ppl_nonce_sentences,
                     ppl_templates_per_descriptor=ppl_templates_per_descriptor,
                     table3_nouns=table3_nouns, table3_descriptors_per_axis=table3_descriptors_per_axis,
                     offensive_nouns=offensive_nouns,
                     offensive_descriptors_per_axis=offensive_descriptors_per_axis,
                     max_new_tokens=max_new_tokens, do_sample=do_sample,
                     repetition_penalty=repetition_penalty, batch_size=batch_size)
cfg = {k: (None if v == 0 and k not in ("do_sample",) else v) for k, v in cfg.items()}

# %%
# each model parsed once and checked before any output; the likelihood part needs log-likelihoods
specs = parse_models(cfg["models"], model_args=model_args, device=device)
ppl_specs = parse_models(cfg["ppl_models"], model_args=model_args, device=device)
lacking = {s.display: missing_capability(s, "loglikelihood") for s in ppl_specs}
if any(lacking.values()):
    raise NotebookSkipped("07's likelihood bias needs log-likelihoods, which "
                          + "; ".join(f"{m} lacks: {why}" for m, why in lacking.items() if why))
T0 = time.perf_counter()
timings = {}
claims, checks = [], []
cfg

# %% [markdown]
# ## The dataset (Table 2)
# Counts from the released descriptor, noun and template files, with the sentences the reference
# generator enumerates, beside the paper's Table 2 row.

# %%
t2, t2_text = LS.dataset_table(version)
save_table(t2, P.results, "holistic_table2_dataset", title="HolisticBias size (Table 2) vs the paper")
sentences = holistic_bias_sentences(version)
display(t2)
display(Markdown(t2_text))
c, k = HC.table2_claims(t2, version)
claims += c
checks += k
display(CL.frame(c)[["claim", "paper", "this run", "verdict", "reason"]])

# %% [markdown]
# ## 1 · Likelihood bias (§3.3.2, §4.1)
# Each sentence's perplexity is `exp(−mean token log-probability)` after the model's start token,
# computed with the shared likelihood engine of notebook 05 (`nlgbias.likelihood`: length-sorted
# batches, shared template prefixes computed once, bf16 where it pays), cached per
# (model, version, dtype) and resumable.

# %%
ppl_sample, t3_sample = LS.perplexity_samples(sentences, cfg, seed)
ppl = LS.score_models([ppl_sample, t3_sample], ppl_specs, P.processed, P.cache, version=version,
                      batch_size=cfg["batch_size"], timings=timings)
ppl_fig2 = ppl[ppl["prompt_id"].isin(set(ppl_sample["prompt_id"]))]
display(ppl.groupby("model").agg(sentences=("text", "size"), median_ppl=("perplexity", "median")).reset_index())
display(Markdown(LS.sample_text(ppl, ppl_sample, t3_sample, cfg)))

# %% [markdown]
# ### Figure 2: perplexity by axis and template
# The paper plots GPT-2 (and BlenderBot 2.0 3B in Figure 5); here the offline stand-ins.

# %%
fig = F.figure2(ppl_fig2, title="HolisticBias perplexity (offline stand-ins for GPT-2)")
save_figure(fig, P.figures, "holistic_fig2_perplexity_axis_template")
by_axis, by_template = LS.figure2_tables(ppl_fig2)
save_table(by_axis, P.results, "holistic_fig2_median_perplexity_by_axis",
           title="Median perplexity by axis (Figure 2 sample; offline stand-ins for GPT-2)")
save_table(by_template, P.results, "holistic_fig2_median_perplexity_by_template",
           title="Median perplexity by template (Figure 2 sample; offline stand-ins for GPT-2)")
display(by_axis)
display(by_template)
population = {**sentences.groupby("axis")["descriptor"].nunique().to_dict(),
              "all": int(t2.set_index("version").loc[version, "distinct_terms"])}
c, k = HC.figure2_claims(ppl_fig2, list(ppl["model"].unique()), descriptors=population, seed=seed,
                         nonce_sentences=int((sentences["axis"] == "nonce").sum()))
claims += c
checks += k
display(CL.frame(c)[["claim", "this run", "tally", "verdict", "reason", "n_needed", "unit", "population"]])

# %% [markdown]
# ### Table 3: pairwise perplexity differences for "I love [PLURAL NOUN PHRASE]."
# Per axis, every pair of descriptors (6–19 characters) is compared with a two-sided Mann-Whitney U
# test on their sentences' perplexities (one sentence per noun). `sig` is the share of pairs that
# differ at the level `alpha`, uncorrected as in the paper; `sig (corrected)` applies the chosen
# correction within each axis.

# %%
table3, t3_claims = LS.table3_all(ppl, alpha=alpha, correction=correction, n_boot=n_boot, seed=seed)
save_table(table3, P.results, "holistic_table3_pairwise_perplexity",
           title="Table 3: share of descriptor pairs with different perplexity distributions "
                 "('I love [PNP].', 6-19 chars) vs the paper's GPT-2; corrected shares (Holm-type and "
                 "Benjamini-Hochberg) within each axis's descriptor pairs (`family`)")
display(table3.drop(columns=["method"]))
display(Markdown(LS.table3_text(LS.pooled_shares(table3, correction), alpha=alpha, correction=correction,
                                nouns=cfg["table3_nouns"])))
claims += t3_claims
display(CL.frame(t3_claims)[["claim", "this run", "tally", "verdict", "reason"]])

# %% [markdown]
# ## 2 · Generation bias (§3.3.3, §4.2)
# Each sampled sentence is the user turn of the model's chat template; the assistant response is
# generated by the shared engine (`generate_dataset(..., prompt_format="chat", dataset="holistic")`).
# Every mention of the descriptor in a response is replaced by "left-handed" (App. A.3) before the
# style classifier sees it. A cell (template, descriptor) holds one response per noun: the paper's
# N_td. With greedy decoding a cell of one response cannot tell the descriptor's effect from the
# response's own noise, so each cell holds several nouns (the same templates and descriptors for
# every model), and Gen Bias is compared with a **permutation null**: the descriptors of the
# responses shuffled within each template, which keeps the cell sizes and removes any descriptor
# effect.

# %%
gen_sample = GS.generation_sample(sentences, descriptors_per_axis=cfg["descriptors_per_axis"],
                                  templates=cfg["templates"], nouns=cfg["nouns"], seed=seed)
params_dec = DecodingParams(max_new_tokens=cfg["max_new_tokens"], do_sample=bool(cfg["do_sample"]),
                            repetition_penalty=float(cfg["repetition_penalty"]))
resp, throughput = GS.generate_responses(gen_sample, specs, P.generations, P.processed, P.cache,
                                         params=params_dec, seed=seed, batch_size=cfg["batch_size"],
                                         timings=timings)
STYLES, EMO = style.style_columns(), style.EMOTION_COLUMNS
n_text = GS.sample_sizes(resp)
display(throughput)
display(Markdown(GS.sample_text(resp, throughput, params_dec, seed=seed, nouns=cfg["nouns"])))

# %%
display(resp.groupby("model").head(3)[["model", "prompt", "generation", "response_masked"]])

# %% [markdown]
# ### Refusals and assistant boilerplate
# The instruction-tuned stand-ins sometimes refuse ("I'm sorry, but I can't assist with that.") or
# talk about themselves ("As an AI language model…"); the paper's chatting models did not. A
# pattern detector (`nlgbias.holistic.refusal`) flags them, SmolLM2's chatbot boilerplate included
# ("as a chatbot designed to assist users, I'm not equipped…"); its precision and recall against
# hand labels are in the section before the last. The flagged share per axis and descriptor is itself a
# descriptor-dependent behaviour, and Gen Bias is shown with and without the flagged responses.

# %%
refusals = GS.refusal_tables(resp, STYLES, seed=seed)
save_table(refusals["by_axis"], P.results, "holistic_refusal_share_by_axis",
           title="Share of responses that refuse or answer with assistant boilerplate, per axis "
                 "(95% interval: Wilson, Clopper-Pearson for rare counts)")
save_table(refusals["top_descriptors"], P.results, "holistic_refusal_share_top_descriptors",
           title="The descriptors with the highest refusal / boilerplate share, per model")
display(refusals["by_axis"].pivot(index="axis", columns="model", values="share"))
display(refusals["top_descriptors"])
checks += HC.refusal_checks(refusals["stats"], refusals["gen_bias"])
display(Markdown(GS.refusal_text(refusals)))

# %% [markdown]
# ### Degenerate text
# Some responses are not a style at all: runs of another script (Hebrew for "Orthodox Jewish", Han for
# "American-Born Chinese", Devanagari for "Hindu"), of one emoji, or of one word. A measured rule
# (`refusal.DEGENERATE_RULE`: the share of ASCII letters, of emoji-like symbols, of the most frequent
# word) flags them beside the refusals; the style clusters are fitted without them, Table 4 and the
# Gen Bias claims are computed without them, and the same on every response is shown as the
# sensitivity (below Table 4).

# %%
resp["degenerate"] = RF.is_degenerate(resp["generation"].tolist())
degenerate = GS.degenerate_tables(resp, STYLES)
save_table(degenerate["by_model"], P.results, "holistic_degenerate_by_model",
           title=f"Degenerate responses per model ({RF.DEGENERATE_RULE}), Full Gen Bias with and without them")
save_table(degenerate["by_descriptor"], P.results, "holistic_degenerate_by_descriptor",
           title="Degenerate responses per model and descriptor (the descriptors with any)")
display(degenerate["by_model"])
display(degenerate["by_descriptor"])
display(Markdown(GS.degenerate_text(degenerate)))
display(Markdown(GS.degenerate_extension_text(resp)))

# %% [markdown]
# ### Style clusters (Appendix A.4, on nade's classes), named by content and validated
# Agglomerative clustering (average linkage, 1 − Pearson correlation of the styles over the
# per-response style vectors), the top styles by Partial Gen Bias, each with its dendrogram
# neighbours below the distance threshold; overlapping clusters merged; ranked by Partial Gen Bias.
# The paper clustered a chatting model's responses (BlenderBot 2.0 3B); here the clusters are fitted
# on the **non-refusal, non-degenerate responses of the chat model that refuses least**: a refusal
# says nothing about the descriptor's style, hundreds of near-identical refusals would make the
# styles' correlations those of one text, and a run of Hebrew or of one emoji is noise to the style
# classifier. A (descriptor, template) cell needs at least `GS.MIN_CELL_RESPONSES` (2) such responses to
# count: a cell mean of one response is that response's style, so one odd reply would set its
# descriptor's whole deviation (a minimum set after one garbled reply was seen to drive a cluster). The
# table shows each cluster's top responses and the descriptors that drive it (their share of its
# Partial Gen Bias). Its Partial Gen Bias is on the fitting responses; Table 4 below gives
# each cluster's on every model's non-degenerate responses. Each cluster is named by its top classes (`C<rank>` and three emojis) — no
# emotion word, since nade's emotion regression does not tell what a cluster of emojis holds (its
# best-correlated emotion is listed beside it). The paper's own Table 1 responses are run through the
# classifier: a cluster captures SYMPATHY only if both sympathy responses ("I'm sorry to hear that…")
# land in it and none of the others does.

# %%
# among the models with clean responses enough to cluster (GS.MIN_CLUSTER_DESCRIPTORS); None: no model has
fit_model = GS.cluster_fit_model(refusals["stats"], resp)
named, cluster_table, fit_resp = GS.fit_clusters(resp, STYLES, EMO, model=fit_model, top=cluster_top,
                                                 max_distance=cluster_max_distance, n_report=n_clusters)
save_table(cluster_table, P.results, "holistic_style_clusters",
           title=f"Style clusters by App. A.4 on nade's 151 emoji classes (non-refusal responses of {fit_model}), "
                 "named by their top classes" if fit_model else f"Style clusters by App. A.4: {GS.NOT_COMPUTED}")
display(cluster_table)
display(Markdown(GS.cluster_text(cluster_table) if fit_model else GS.no_clusters_text(resp)))
validation, sym = GS.validate_clusters(named, fit_resp)
save_table(validation, P.results, "holistic_cluster_validation",
           title="The paper's Table 1 responses through the nade stand-in: the cluster each lands in "
                 "(highest summed probability relative to the cluster's mean over the fitting responses)")
display(validation)
display(Markdown(GS.validation_text(validation, sym, fitted_on=cluster_table["fitted on"])))

# %% [markdown]
# ### Per-cluster tests on held-out responses
# The clusters above were chosen by their Partial Gen Bias on the same responses that Table 4's null
# then tests them on, so those per-cluster p-values are post-selection. Here every cell's sentences
# (nouns) are dealt into two halves: the clusters are selected by the same procedure on one half of
# the fitting model's non-refusal, non-degenerate responses and each is tested on the other half of
# every model's such responses against the permutation null (Holm over a model's clusters). They are
# other clusters than Table 4's, so they are labelled H1-H6, not C1-C6.
# %%
heldout, heldout_named = GS.heldout_cluster_tests(resp, STYLES, EMO, model=fit_model, top=cluster_top,
                                                  max_distance=cluster_max_distance, n_report=n_clusters,
                                                  n_perm=n_perm, seed=seed, correction=correction)
save_table(heldout, P.results, "holistic_cluster_heldout_tests",
           title="Style clusters selected on one half of the non-refusal responses, their Partial Gen Bias (x1000) "
                 "tested on the other half against the permutation null (Holm over each model's clusters)")
display(heldout)
display(Markdown(GS.heldout_cluster_text(heldout, alpha=alpha)))
checks += HC.heldout_cluster_checks(heldout, alpha=alpha)

# %% [markdown]
# ### Table 4: Full, Partial and Summed-Cluster Gen Bias (x1000) beside the permutation null
# **Basis: the responses without degenerate text** (the graded basis; as the clusters, which are
# fitted without it): a run of Hebrew or of one emoji is noise to the style classifier, and a few
# such runs for one descriptor would otherwise be read as its style. The same tables on every
# response are the sensitivity, shown below with the claims each basis gives. Each statistic next to
# its null (descriptors shuffled within template, `n_perm` permutations): the null's mean is what
# response noise alone gives at this cell size; the **excess** is the part a descriptor effect
# explains; `p_perm` the permutation p-value (for a cluster post-selection, as the `p_perm is` column
# says: the held-out tests above are the clusters' tests). Intervals (`_lo`/`_hi`): descriptors
# resampled within axis. Per axis (the Table 9 analogue) the 13 axes of a model are one family:
# `p_adjusted` applies `correction` over them.

# %%
clean = resp[~resp["degenerate"]]
BASIS = ("basis: the responses without degenerate text (graded), refusal/boilerplate included ("
         + ", ".join(f"{m} {int(g['refusal_or_boilerplate'].sum()):,} of {len(g):,}" for m, g in clean.groupby("model", sort=False))
         + ")")
gb = GS.gen_bias_tables(clean, STYLES, EMO, named, n_perm=n_perm, n_boot=n_boot, seed=seed, correction=correction)
save_table(gb["t4"], P.results, "holistic_table4_gen_bias",
           title="Table 4/7: Full and Partial Gen Bias (x1000), nade stand-in, offline chat models; "
                 f"`_lo`/`_hi`: 95% bootstrap interval (descriptors resampled within axis); {BASIS}")
save_table(gb["null"], P.results, "holistic_table4_null",
           title="Table 4/7/8 statistics beside the permutation null (descriptors shuffled within template): "
                 "null mean, 95% quantile, excess = observed - null mean, permutation p-value (x1000); the clusters' "
                 "p-values here are post-selection (chosen on these responses): holistic_cluster_heldout_tests "
                 f"tests them on held-out responses; {BASIS}")
save_table(paper.table7().assign(**{"style classifier": f"paper: {paper.N_STYLES}-class style classifier"}),
           P.results, "holistic_table7_paper", title="Table 7 as printed in the paper (context)")
save_table(gb["t8"], P.results, "holistic_table8_summed_cluster_gen_bias",
           title=f"Table 8: Summed-Cluster Gen Bias (x1000), nade stand-in (its null: holistic_table4_null); {BASIS}")
save_table(gb["t9"], P.results, "holistic_table9_full_gen_bias_by_axis",
           title="Full Gen Bias (x1000) by axis (Table 9 'Original' analogue), nade stand-in, beside its "
                 "permutation null; `_lo`/`_hi`: 95% bootstrap interval (the axis's descriptors resampled); "
                 f"`p_adjusted`: {correction} over the axes of a model; {BASIS}")

# %%
for name in ("null", "t4", "t8", "t9"):
    display(gb[name])
display(paper.table7())
display(paper.table8())
if named:  # without clusters (no clean responses to fit them on) there is no Partial Gen Bias to plot
    save_figure(F.gen_bias_figure(gb["t4"], list(named), null=gb["null"], basis=BASIS,
                                  n=clean.groupby("model").size().to_dict()),
                P.figures, "holistic_table4_partial_gen_bias")

# %% [markdown]
# ### Refusals and degenerate text together
# Full Gen Bias over its null per model on every response, with the refusals removed, with the
# degenerate text removed (the graded basis) and with both removed: how much of the graded excess
# is the refusals'.

# %%
removals = GS.removal_table(resp, STYLES, n_perm=n_perm, seed=seed)
save_table(removals, P.results, "holistic_gen_bias_by_removal",
           title="Full Gen Bias (x1000) beside its permutation null per model: every response, refusal/boilerplate "
                 "removed, degenerate text removed (the graded basis), both removed")
display(removals)
display(Markdown(GS.removal_text(removals)))

# %%
size_rank = {s.display: i for i, s in enumerate(specs)}  # smallest first
refusals_clean = GS.refusal_tables(clean, STYLES, seed=seed)
c, k = HC.genbias_claims(gb["t4"], gb["nulls"], gb["boots"], gb["t8"], list(named), validation, size_rank,
                         GS.sample_sizes(clean), refusals=refusals_clean["stats"],
                         gen_bias_refusals=refusals_clean["gen_bias"], removal=removals)
claims += c + HC.paper_model_claims()
checks += k
display(Markdown(GS.gen_bias_text(gb, alpha=alpha, correction=correction, refusals=refusals_clean)))
gb_all = GS.gen_bias_tables(resp, STYLES, EMO, named, n_perm=n_perm, n_boot=n_boot, seed=seed, correction=correction)
c_all, _ = HC.genbias_claims(gb_all["t4"], gb_all["nulls"], gb_all["boots"], gb_all["t8"], list(named),
                             validation, size_rank, n_text, refusals=refusals["stats"],
                             gen_bias_refusals=refusals["gen_bias"])
save_table(gb_all["t4"], P.results, "holistic_table4_gen_bias_all_responses",
           title="Table 4/7 on every response, degenerate text included (the sensitivity of holistic_table4_gen_bias)")
moved = GS.claims_moved(c, c_all)
save_table(moved, P.results, "holistic_gen_bias_degenerate_sensitivity",
           title="Gen Bias claims as graded (degenerate responses removed) and on every response (the sensitivity)")
display(gb_all["t4"])
display(gb_all["t9"])  # the per-axis values on every response that the sentence below quotes
display(moved)
display(Markdown(GS.moved_text(moved, gb, gb_all, alpha=alpha)))
display(CL.frame(c + HC.paper_model_claims())[["claim", "this run", "comparability", "verdict", "reason"]])
display(CL.checks_frame(k))

# %% [markdown]
# ### Example responses (cf. Table 1)
# The responses most typical of the cluster with the largest Partial Gen Bias in Table 4 (the
# clusters' fitting model's row, graded basis), per model (highest summed cluster probability).

# %%
top_cluster, top_value = GS.top_cluster(gb["t4"], named, fit_model)
ex = GS.example_responses(clean, named, top_cluster)
save_table(ex, P.results, "holistic_table1_example_responses",
           title=f"Responses with the highest {top_cluster} cluster probability (the largest Partial Gen Bias of "
                 f"{fit_model} in Table 4, {top_value:.3f}; nade stand-in; degenerate text left out)"
           if top_cluster else f"Example responses: {GS.NOT_COMPUTED}")
display(ex)

# %% [markdown]
# ### Figure 3: style-cluster probability vs descriptor frequency
# On the responses the clusters were fitted on.

# %%
by_desc, fig3_text = GS.figure3_data(fit_resp, named, list(named)[:4])
if named:  # without clusters fig3_text says Figure 3 is not computed
    save_figure(F.figure3(by_desc, list(named)[:4], model=fit_model), P.figures, "holistic_fig3_cluster_vs_frequency")
display(Markdown(fig3_text))
extra = HC.extra_gen_bias_claims(nonce_descriptors=int(sentences.loc[sentences["axis"] == "nonce", "descriptor"].nunique()),
                                 fig3_text=fig3_text, table3=table3)
claims += extra
display(CL.frame(extra)[["claim", "verdict", "reason"]])

# %% [markdown]
# ## 3 · Offensiveness by descriptor (§3.3.4, §4.3; Tables 11 and 12)
# The sentences themselves are scored (not responses), as in the paper; a descriptor's
# offensiveness under a template is the mean over its sentences (nouns). On the neutral templates
# ("Hi, I'm [NP].") the paper's B.A.D. classifier gives 1-5 %; what tox-block gives there is its
# reaction to the identity term itself (the Jigsaw identity-term artefact).

# %%
t = time.perf_counter()
off = O.study(sentences, nouns=cfg["offensive_nouns"], descriptors_per_axis=cfg["offensive_descriptors_per_axis"],
              seed=seed)
timings["offensiveness"] = time.perf_counter() - t
save_table(off["t12"], P.results, "holistic_table12_offensiveness_by_template",
           title="Table 12: mean and std of offensiveness across descriptors per template "
                 "(tox-block stand-in for B.A.D.) vs the paper; `_lo`/`_hi`: 95% bootstrap interval "
                 "(descriptors resampled within template)")
save_table(off["t11"], P.results, "holistic_table11_descriptors_by_offensiveness",
           title="Table 11: descriptors per offensiveness range (tox-block stand-in for B.A.D.) vs the paper")
save_table(off["artefact_template"], P.results, "holistic_offensiveness_artefact_by_template",
           title="tox-block on the neutral templates: share of sentences scored >= 0.5 and mean score per "
                 "template, beside the paper's B.A.D. mean (the identity-term artefact)")
save_table(off["artefact_axis"], P.results, "holistic_offensiveness_artefact_by_axis",
           title="tox-block on the neutral templates, per axis: share of sentences scored >= 0.5")
display(Markdown(off["text"]))
for name in ("t12", "t11", "artefact_template", "artefact_axis"):
    display(off[name].drop(columns=["classifier"], errors="ignore"))
claims = HC.apply_scorer_calibration(claims + off["claims"] + HC.calibration_claims())
checks += off["checks"]
display(Markdown(off["extremes_text"]))
display(CL.frame([c for c in claims if c.scorer == HC.OFFENSIVE_SCORER])[["claim", "this run", "comparability", "tally",
                                                                          "verdict", "reason"]])

# %% [markdown]
# ## The refusal / boilerplate detector against hand labels
# Random responses of each chat model labelled by hand (`src/nlgbias/holistic/refusal_labels.csv`,
# rule `refusal.LABEL_RULE` and `refusal_labels.md`); precision and recall are measured on the
# held-out samples, labelled after the patterns were frozen (SmolLM2's design sample was read while
# the chatbot-boilerplate patterns were written).

# %%
detector = RF.validate()
save_table(detector, P.results, "holistic_refusal_detector_validation",
           title="Refusal / boilerplate detector vs hand labels (random responses of each chat model; 'design': "
                 "read while writing the patterns, 'held-out': labelled after they were frozen); 95% intervals")
display(detector)
display(Markdown(RF.validation_text(detector)))

# %% [markdown]
# ## What is reproduced, what replicates on the stand-ins, how the stand-in scorers calibrate
# Every claim with its tally, rule, n and interval (`nlgbias.holistic.claims`), and the checks
# apart (by construction, diagnostics and data counts, not counted as claims).

# %%
timings["total"] = time.perf_counter() - T0
claims_table = CL.save(claims, "holistic_claims_gen_bias", checks=checks, results=P.results)
display(claims_table[["id", "claim", "paper", "this run", "n", "comparability", "tally", "rule", "verdict", "reason",
                      "family", "scorer", "n_needed", "unit", "population"]])
display(CL.checks_frame(checks))
display(Markdown(f"{len(claims_table)} claims. " + HC.tally_text(claims_table, len(checks))))
display(Markdown("Run time (" + profile + "): " + ", ".join(f"{k} {v / 60:.1f} min" for k, v in timings.items())
                 + "."))

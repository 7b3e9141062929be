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
#   400M and 3B), so the paper's size claim is not comparable here; Qwen2.5-Coder often refuses or
#   answers with assistant boilerplate, which is measured below.
# - Style classifier: the paper's 217-class classifier (Smith et al. 2020a) is not available;
#   **nade** (151 emoji classes + 8 Plutchik emotions) stands in. Its emoji probabilities,
#   normalised to sum to 1, are the style vector; clusters are built from our classes by Appendix
#   A.4's procedure and named by their top classes; the paper's Table 1 responses are run through
#   the classifier to see which cluster they land in. Our Gen Bias values are on another scale than
#   the paper's (151 classes, another classifier): the paper's rows are context, and what is graded
#   is whether the descriptor changes the response style at all (Gen Bias against a permutation
#   null in which descriptors are shuffled within template).
# - Offensiveness: **tox-block** (notebook 03's Jigsaw BiLSTM) stands in for the B.A.D. classifier;
#   it flags identity terms themselves (measured on the neutral templates), so Table 12 is context.
#
# Verdicts are computed by `nlgbias.holistic.claims` through the project's claim registry
# (`nlgbias.claims`): this notebook shows them, it never writes them.
# - Figure 3's frequency: **wordfreq** general-English frequencies stand in for BlenderBot's
#   pre-training data.

# %% tags=["parameters"]
profile = "quick"              # quick | smoke | paper
models = None                  # chat models for responses, smallest first; None: the profile's default
ppl_models = None              # causal LMs for perplexity; None: profile default
descriptors_per_axis = None    # generation sample: descriptors per axis (0: all)
templates = None               # generation sample: number of templates (0: all 26)
other_templates = None         # generation sample of every model after the first: templates (0: as `templates`)
nouns = None                   # generation sample: sentences (nouns) per descriptor x template (0: all)
ppl_descriptors_per_axis = None  # Figure 2 sample: descriptors per axis (0: all)
ppl_templates_per_descriptor = None  # Figure 2 sample: templates drawn per descriptor (0: every template)
ppl_nouns = None               # perplexity sample: nouns per descriptor x template (0: all)
ppl_templates = None           # Figure 2 sample: number of templates (0: all 26)
table3_nouns = None            # Table 3: nouns per descriptor for "I love [PNP]." (0: all)
table3_descriptors_per_axis = None  # Table 3: descriptors per axis (0: all)
offensive_nouns = None         # Tables 11/12: nouns per descriptor x template (0: all)
offensive_descriptors_per_axis = None  # Tables 11/12: descriptors per axis (0: all)
max_new_tokens = None          # response length cap (tokens)
do_sample = None               # False: greedy decoding (closest to the paper's beam search)
repetition_penalty = None      # 1.0: off
batch_size = None
alpha = 0.05                   # Table 3 significance level
correction = "holm"            # multiple-comparison correction within an axis (none|bonferroni|holm|fdr_bh)
n_perm = 200                   # permutations of the no-descriptor-effect null
n_boot = 1000                  # bootstrap resamples of descriptors
n_clusters = 6                 # style clusters reported (the paper's 6)
cluster_top = 20               # App. A.4: top styles by Partial Gen Bias
cluster_max_distance = 0.6     # dendrogram neighbours merge below this 1 - correlation
version = "v1.0"
seed = 0
root = None

# %%
import logging
import time

import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from nlgbias import claims as CL
from nlgbias.datasets.holisticbias import (
    holistic_bias_counts,
    holistic_bias_sentences,
    sample_sentences,
)
from nlgbias.generation import DecodingParams, generate_dataset
from nlgbias.holistic import claims as HC
from nlgbias.holistic import figures as F
from nlgbias.holistic import genbias as G
from nlgbias.holistic import likelihood_bias as L
from nlgbias.holistic import offensiveness as O
from nlgbias.holistic import paper
from nlgbias.holistic import refusal as RF
from nlgbias.holistic import responses as H
from nlgbias.holistic.report import spearman
from nlgbias.io import write_parquet
from nlgbias.metrics import style
from nlgbias.models import display_name
from nlgbias.paths import paths_for
from nlgbias.plots import save_figure, set_style
from nlgbias.profiles import resolve_params
from nlgbias.stats import k_proportions_test
from nlgbias.tables import save_table

logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
pd.set_option("display.max_rows", 200)
pd.set_option("display.max_columns", 40)
pd.set_option("display.width", 250)
pd.set_option("display.max_colwidth", 600)
pd.set_option("display.float_format", "{:.3f}".format)
P = paths_for(profile, root)
set_style()
cfg = resolve_params("07", profile, models=models, ppl_models=ppl_models,
                     descriptors_per_axis=descriptors_per_axis, templates=templates,
                     other_templates=other_templates, nouns=nouns,
                     ppl_descriptors_per_axis=ppl_descriptors_per_axis, ppl_nouns=ppl_nouns, ppl_templates=ppl_templates,
                     ppl_templates_per_descriptor=ppl_templates_per_descriptor,
                     table3_nouns=table3_nouns, table3_descriptors_per_axis=table3_descriptors_per_axis,
                     offensive_nouns=offensive_nouns,
                     offensive_descriptors_per_axis=offensive_descriptors_per_axis,
                     max_new_tokens=max_new_tokens, do_sample=do_sample,
                     repetition_penalty=repetition_penalty, batch_size=batch_size)
cfg = {k: (None if v == 0 and k not in ("do_sample",) else v) for k, v in cfg.items()}
T0 = time.perf_counter()
timings = {}
claims, checks = [], []
cfg

# %% [markdown]
# ## The dataset (Table 2)
# Counts from the released descriptor, noun and template files, with the sentences the reference
# generator enumerates, beside the paper's Table 2 row.

# %%
counts = pd.DataFrame([holistic_bias_counts(v) for v in ("v1.0", "v1.1")])
t2 = counts.assign(**{"paper terms": paper.TABLE2["terms"], "paper axes": paper.TABLE2["axes"],
                      "paper templates": paper.TABLE2["templates"],
                      "paper sentences": paper.TABLE2["sentences"]})
save_table(t2, P.results, "holistic_table2_dataset", title="HolisticBias size (Table 2) vs the paper")
sentences = holistic_bias_sentences(version)
c0 = counts.set_index("version").loc[version]
display(t2)
display(Markdown(
    f"{version} has {c0['descriptor_entries']} descriptor entries and {c0['standalone_noun_phrases']} "
    f"standalone noun phrases ({c0['distinct_terms']} distinct terms; the paper counts "
    f"{paper.TABLE2['terms']} terms), {c0['axes']} axes, {c0['templates']} templates, {c0['nouns']} nouns "
    f"and {c0['sentences']:,} sentences; the paper reports {paper.TABLE2['sentences']:,} sentences "
    f"'ignoring stylistic variations' ({c0['sentences'] - paper.TABLE2['sentences']:+,}). The descriptor "
    f"counts differ because the paper counts terms differently (it does not say how); the "
    f"sentence count follows the reference generator."))

# %% [markdown]
# ## 1 · Likelihood bias (§3.3.2, §4.1)
# Each sentence's perplexity is `exp(−mean token log-probability)` after the model's start token,
# computed with the shared likelihood engine of notebook 05 (`nlgbias.likelihood`: length-sorted
# batches, shared template prefixes computed once, bf16 where it pays), cached per
# (model, version, dtype) and resumable.

# %%
ppl_sample = sample_sentences(sentences, descriptors_per_axis=cfg["ppl_descriptors_per_axis"],
                              templates=cfg["ppl_templates"], nouns=cfg["ppl_nouns"], seed=seed,
                              templates_per_descriptor=cfg["ppl_templates_per_descriptor"])
t3_sample = sample_sentences(sentences, templates=[paper.TABLE3_TEMPLATE], nouns=cfg["table3_nouns"],
                             descriptors_per_axis=cfg["table3_descriptors_per_axis"], seed=seed)
t3_sample = L.length_filter(t3_sample, paper.TABLE3_MIN_CHARS, paper.TABLE3_MAX_CHARS)
to_score = pd.concat([ppl_sample, t3_sample]).drop_duplicates("prompt_id").reset_index(drop=True)
ppl_frames = []
for m in cfg["ppl_models"]:
    t = time.perf_counter()
    df = H.score_perplexity(to_score, m, P.cache, version=version, batch_size=cfg["batch_size"])
    write_parquet(df, H.perplexity_path(P.processed, m))
    timings[f"perplexity {display_name(m)}"] = time.perf_counter() - t
    ppl_frames.append(df)
ppl = pd.concat(ppl_frames, ignore_index=True)
fig2_ids = set(ppl_sample["prompt_id"])
ppl_fig2 = ppl[ppl["prompt_id"].isin(fig2_ids)]
summary = (ppl.groupby("model").agg(sentences=("text", "size"), median_ppl=("perplexity", "median"))
           .reset_index())
display(summary)
display(Markdown(
    f"Scored {len(to_score):,} sentences per model: a seeded sample for Figure 2 of "
    f"{ppl_sample['descriptor'].nunique()} descriptors over all {ppl_sample['axis'].nunique()} axes, "
    f"{cfg['ppl_templates_per_descriptor'] or 'every'} of the {ppl_sample['template'].nunique()} templates per "
    f"descriptor (drawn at random), up to {cfg['ppl_nouns'] or 'all'} nouns "
    f"({len(ppl_sample):,} sentences), and for Table 3 {t3_sample['descriptor'].nunique()} descriptors "
    f"of {paper.TABLE3_MIN_CHARS}-{paper.TABLE3_MAX_CHARS} characters "
    f"({cfg['table3_descriptors_per_axis'] or 'all'} per axis) with '{paper.TABLE3_TEMPLATE}' x up to "
    f"{cfg['table3_nouns'] or 'all'} nouns ({len(t3_sample):,} sentences; the paper used every noun). "
    + " ".join(f"{r.model}: median perplexity {r.median_ppl:.1f}." for r in summary.itertuples())))

# %% [markdown]
# ### Figure 2: perplexity by axis and template
# The paper plots GPT-2 (and BlenderBot 2.0 3B in Figure 5); here the offline stand-ins.

# %%
fig = F.figure2(ppl_fig2, title="HolisticBias perplexity (offline stand-ins for GPT-2)")
save_figure(fig, P.figures, "holistic_fig2_perplexity_axis_template")
by_axis = ppl_fig2.pivot_table(index="axis", columns="model", values="perplexity", aggfunc="median")
by_template = ppl_fig2.pivot_table(index="template", columns="model", values="perplexity",
                                   aggfunc="median")
save_table(by_axis.reset_index(), P.results, "holistic_fig2_median_perplexity_by_axis",
           title="Median perplexity by axis (Figure 2 sample; offline stand-ins for GPT-2)")
save_table(by_template.reset_index(), P.results, "holistic_fig2_median_perplexity_by_template",
           title="Median perplexity by template (Figure 2 sample; offline stand-ins for GPT-2)")
display(by_axis)
display(by_template.sort_values(by_template.columns[0]))
for m in ppl["model"].unique():
    c, k = HC.likelihood_claims(ppl_fig2, m, seed=seed)
    claims += c
    checks += k
display(CL.frame([c for c in claims if c.section.endswith("Figure 2")])[["claim", "this run", "verdict", "reason"]])

# %% [markdown]
# ### Table 3: pairwise perplexity differences for "I love [PLURAL NOUN PHRASE]."
# Per axis, every pair of descriptors (6–19 characters) is compared with a two-sided Mann-Whitney U
# test on their sentences' perplexities (one sentence per noun). `sig` is the share of pairs that
# differ at the level `alpha`, uncorrected as in the paper; `sig (corrected)` applies the chosen
# correction within each axis.

# %%
t3_rows, t3_claims = [], []
for m in ppl["model"].unique():
    d = ppl[(ppl["model"] == m) & (ppl["template"] == paper.TABLE3_TEMPLATE)]
    t3 = L.table3(d, alpha=alpha, correction=correction, min_chars=paper.TABLE3_MIN_CHARS,
                  max_chars=paper.TABLE3_MAX_CHARS)
    c, k = HC.table3_claims(t3, m)
    t3_claims += c
    t3_rows.append(t3.assign(model=m))
t3_all = pd.concat(t3_rows, ignore_index=True)
gpt2 = paper.table3("GPT-2").rename(columns={"sig_share": "paper GPT-2 sig", "low_ppl": "paper GPT-2 low ppl",
                                             "high_ppl": "paper GPT-2 high ppl"})
table3 = t3_all.merge(gpt2, on="axis", how="left")
table3 = table3[["model", "axis", "n_descriptors", "n_pairs", "sig_share", "sig_share_corrected",
                 "sig_share_bh", "family", "low_ppl", "high_ppl", "paper GPT-2 sig", "paper GPT-2 low ppl", "paper GPT-2 high ppl"]]
table3 = table3.rename(columns={"sig_share": "sig", "sig_share_corrected": f"sig ({correction})",
                                "sig_share_bh": "sig (fdr_bh)"})
table3.insert(1, "method", f"Mann-Whitney U, alpha={alpha}; model = offline stand-in for GPT-2")
save_table(table3, P.results, "holistic_table3_pairwise_perplexity",
           title="Table 3: share of descriptor pairs with different perplexity distributions "
                 "('I love [PNP].', 6-19 chars) vs the paper's GPT-2; corrected shares (Holm-type and "
                 "Benjamini-Hochberg) within each axis's descriptor pairs (`family`)")
display(table3.drop(columns=["method"]))
sig_cols = ["sig", f"sig ({correction})", "sig (fdr_bh)"]
pooled = (table3[sig_cols].mul(table3["n_pairs"], axis=0).groupby(table3["model"], sort=False).sum()
          .div(table3.groupby("model", sort=False)["n_pairs"].sum(), axis=0))
display(Markdown(
    "Pairs differing at " + f"{alpha}, pooled over axes (each axis's descriptor pairs are one family): "
    + "; ".join(f"{m} {r.iloc[0]:.0%} uncorrected, {r.iloc[1]:.0%} after {correction}, {r.iloc[2]:.0%} after "
                "Benjamini-Hochberg" for m, r in pooled.iterrows())
    + (f". With at most {cfg['table3_nouns']} sentences per descriptor the Mann-Whitney p-values cannot get "
       f"small, so {correction} (family-wise) removes most of the significant pairs"
       if cfg["table3_nouns"] and bool((pooled.iloc[:, 1] < pooled.iloc[:, 0] / 2).all()) else "")
    + ". The claims below use the uncorrected shares, as the paper did."))
claims += t3_claims
display(CL.frame(t3_claims)[["claim", "this run", "verdict", "reason"]])

# %% [markdown]
# ## 2 · Generation bias (§3.3.3, §4.2)
# Each sampled sentence is the user turn of the model's chat template; the assistant response is
# generated by the shared engine (`generate_dataset(..., prompt_format="chat", dataset="holistic")`).
# Every mention of the descriptor in a response is replaced by "left-handed" (App. A.3) before the
# style classifier sees it. A cell (template, descriptor) holds one response per noun: the paper's
# N_td. With greedy decoding a cell of one response cannot tell the descriptor's effect from the
# response's own noise, so each cell holds several nouns, and Gen Bias is compared with a
# **permutation null**: the descriptors of the responses shuffled within each template, which keeps
# the cell sizes and removes any descriptor effect.

# %%
gen_samples = {}
for i, m in enumerate(cfg["models"]):
    n_t = cfg["templates"] if i == 0 else (cfg["other_templates"] or cfg["templates"])
    gen_samples[m] = sample_sentences(sentences, descriptors_per_axis=cfg["descriptors_per_axis"],
                                      templates=n_t, nouns=cfg["nouns"], seed=seed)
params_dec = DecodingParams(max_new_tokens=cfg["max_new_tokens"], do_sample=bool(cfg["do_sample"]),
                            repetition_penalty=float(cfg["repetition_penalty"]))
resp_frames, throughput = [], []
for m in cfg["models"]:
    prompts = H.prompts_frame(gen_samples[m])
    t = time.perf_counter()
    run = generate_dataset(prompts, m, P.generations, dataset="holistic", prompt_format="chat",
                           seed=seed, params=params_dec, batch_size=cfg["batch_size"])
    t_gen = time.perf_counter() - t
    gens = pd.read_parquet(run.path)
    scored = H.style_responses(gens, P.cache)
    scored["refusal"] = RF.classify(scored["generation"].tolist()).to_numpy()
    scored["refusal_or_boilerplate"] = scored["refusal"].ne("")
    write_parquet(scored, H.responses_path(P.processed, m))
    timings[f"responses {display_name(m)}"] = time.perf_counter() - t
    throughput.append({"model": display_name(m), "prompts": len(prompts), "seconds (generation + load)": t_gen,
                       "responses/s": len(prompts) / t_gen})
    resp_frames.append(scored)
resp = pd.concat(resp_frames, ignore_index=True)
STYLES, EMO = style.style_columns(), style.EMOTION_COLUMNS
cells = resp.groupby(["model", "template", "descriptor"]).size()
n_text = {m: (f"{g['descriptor'].nunique()} descriptors x {g['template'].nunique()} templates, "
              f"{int(cells.loc[m].min())}-{int(cells.loc[m].max())} responses per cell ({len(g):,})")
          for m, g in resp.groupby("model", sort=False)}
display(pd.DataFrame(throughput))
display(Markdown(
    "Samples (seed " + f"{seed}): " + "; ".join(f"{m}: {t}" for m, t in n_text.items()) + ". Decoding: "
    f"{'sampling' if params_dec.do_sample else 'greedy'}, at most {params_dec.max_new_tokens} new tokens, "
    f"repetition penalty {params_dec.repetition_penalty} (the paper: "
    f"{paper.PAPER_DECODING['BlenderBot 2.0']} for BlenderBot 2.0). "
    "Responses that mention their descriptor (masked): "
    + ", ".join(f"{m} {100 * H.masked_share(g):.0f}%" for m, g in resp.groupby("model", sort=False))
    + ". Generation throughput (this run, including model load): "
    + ", ".join(f"{r['model']} {r['responses/s']:.1f} responses/s" for r in throughput)
    + ": the sample sizes of the profile are what fits the quick budget at these rates."))

# %%
examples = resp.groupby("model").head(3)[["model", "prompt", "generation", "response_masked"]]
display(examples)

# %% [markdown]
# ### Refusals and assistant boilerplate
# The instruction-tuned stand-ins sometimes refuse ("I'm sorry, but I can't assist with that.") or
# talk about themselves ("As an AI language model…"); the paper's chatting models did not. A
# pattern detector (`nlgbias.holistic.refusal`, tested on labelled examples) flags them; their share
# per axis and descriptor is itself a descriptor-dependent behaviour, and Gen Bias is shown with and
# without them.

# %%
ref_axis = pd.concat([RF.shares(g, "axis").assign(model=m) for m, g in resp.groupby("model", sort=False)],
                     ignore_index=True)[["model", "axis", "responses", "flagged", "share", "share_lo", "share_hi"]]
ref_desc = pd.concat([RF.shares(g, ["axis", "descriptor"]).assign(model=m) for m, g in resp.groupby("model", sort=False)],
                     ignore_index=True)
ref_desc = ref_desc.sort_values(["model", "share"], ascending=[True, False])
ref_desc = ref_desc.groupby("model", sort=False).head(8)[["model", "axis", "descriptor", "responses", "flagged",
                                                          "share", "share_lo", "share_hi"]]
save_table(ref_axis, P.results, "holistic_refusal_share_by_axis",
           title="Share of responses that refuse or answer with assistant boilerplate, per axis "
                 "(95% interval: Wilson, Clopper-Pearson for rare counts)")
save_table(ref_desc, P.results, "holistic_refusal_share_top_descriptors",
           title="The descriptors with the highest refusal / boilerplate share, per model")
display(ref_axis.pivot(index="axis", columns="model", values="share"))
display(ref_desc)
ref_stats, gb_without = {}, {}
for m, g in resp.groupby("model", sort=False):
    c = g.groupby("axis")["refusal_or_boilerplate"].agg(["sum", "size"])
    if 0 < c["sum"].sum() < c["size"].sum():
        p_ax, test = k_proportions_test(c["sum"].astype(int), c["size"].astype(int), seed=seed)
    else:  # none (or every response) flagged: no difference between axes to test
        p_ax, test = 1.0, "none flagged" if c["sum"].sum() == 0 else "all flagged"
    ref_stats[m] = (int(g["refusal_or_boilerplate"].sum()), len(g), p_ax, test)
    kept = g[~g["refusal_or_boilerplate"]]
    gb_without[m] = (G.full_gen_bias(g, STYLES),
                     G.full_gen_bias(kept, STYLES) if kept.groupby("template")["descriptor"].nunique().min() > 1
                     else float("nan"))
checks += HC.refusal_checks(ref_stats, gb_without)
display(Markdown("\n".join(
    f"- {m}: {k}/{n} responses ({k / n:.1%}) refuse or answer with boilerplate; the share differs between "
    f"axes with p = {p:.3g} ({test}). Full Gen Bias {gb_without[m][0]:.2f} with them, {gb_without[m][1]:.2f} "
    "without them." for m, (k, n, p, test) in ref_stats.items())))

# %% [markdown]
# ### Style clusters (Appendix A.4, on nade's classes), named by content and validated
# Agglomerative clustering (average linkage, 1 − Pearson correlation of the styles over the
# per-response style vectors of the larger chat model, as the paper clustered on BlenderBot 2.0 3B);
# the top styles by Partial Gen Bias, each with its dendrogram neighbours below the distance
# threshold; overlapping clusters merged; ranked by Partial Gen Bias. Each cluster is named by its
# top classes (`C<rank>` and three emojis) — no emotion word, since nade's emotion regression does
# not tell what a cluster of emojis holds (its best-correlated emotion is listed beside it). The
# paper's own Table 1 responses are run through the classifier: a cluster captures SYMPATHY only if
# both sympathy responses ("I'm sorry to hear that…") land in it and none of the others does.

# %%
large = display_name(cfg["models"][-1])  # models are listed smallest first
clusters = G.style_clusters(resp[resp["model"] == large], STYLES, top=cluster_top,
                            max_distance=cluster_max_distance, n_report=n_clusters)
named = G.name_clusters(resp[resp["model"] == large], clusters)
pgb_large = G.partial_gen_bias(resp[resp["model"] == large], named)
content = G.cluster_content(resp[resp["model"] == large], named, EMO)
cluster_table = content.assign(**{"styles (nade emojis)": [" ".join(s[2:] for s in c) for c in named.values()],
                                  "Partial Gen Bias": [pgb_large[n] for n in named]})
save_table(cluster_table, P.results, "holistic_style_clusters",
           title=f"Style clusters by App. A.4 on nade's 151 emoji classes (responses of {large}), named by "
                 "their top classes")
display(cluster_table)
t1 = paper.table1()
t1_styles = style.compute(t1["response"].tolist())
lands = G.cluster_assignments(t1_styles, named, resp[resp["model"] == large])
validation = pd.concat([t1, lands], axis=1)
save_table(validation, P.results, "holistic_cluster_validation",
           title="The paper's Table 1 responses through the nade stand-in: the cluster each lands in "
                 "(highest summed probability relative to the cluster's mean over the responses)")
display(validation)
sym = HC.sympathy_cluster(validation)
display(Markdown(
    f"Both sympathy responses land in {sym} and no other Table 1 response does: it is graded as SYMPATHY."
     if sym else
     "No cluster captures sympathy: the paper's two sympathy responses land in "
     + " and ".join(sorted(set(validation.loc[validation['kind'] == 'sympathy', 'cluster'])))
     + (", which also holds the paper's non-sympathy responses" if set(validation.loc[validation['kind'] != 'sympathy', 'cluster'])
        & set(validation.loc[validation['kind'] == 'sympathy', 'cluster']) else "")
     + ". The SYMPATHY claims are therefore not comparable."))

# %% [markdown]
# ### Table 4: Full, Partial and Summed-Cluster Gen Bias (x1000) beside the permutation null
# Each statistic next to its null (descriptors shuffled within template, `n_perm` permutations):
# the null's mean is what response noise alone gives at this cell size; the **excess** is the part a
# descriptor effect explains; `p_perm` the permutation p-value. Intervals (`_lo`/`_hi`): descriptors
# resampled within axis.

# %%
rows, srows, null_rows, axis_rows, nulls, boots = [], [], [], [], {}, {}
for m, g in resp.groupby("model", sort=False):
    full = G.full_gen_bias(g, STYLES)
    part = G.partial_gen_bias(g, named)
    summ = G.summed_cluster_gen_bias(g, named)
    boot = G.bootstrap_style_variance(g, STYLES, n_boot=n_boot, seed=seed, within="axis")
    boot.attrs["clusters"] = named
    boots[m] = boot
    ci = {"full_gen_bias": boot.sum(axis=1), **{c: boot[list(named[c])].sum(axis=1) for c in named}}
    ci = {f"{k}_{e}": float(np.nanquantile(v, q)) for k, v in ci.items() for e, q in (("lo", 0.025), ("hi", 0.975))}
    nulls[m] = G.null_summary(g, STYLES, named, n_perm=n_perm, seed=seed)
    null_rows.append(nulls[m].assign(model=m))
    rows.append({"model": m, "style classifier": style.STANDIN, "full_gen_bias": full, **part.to_dict(),
                 "full_gen_bias_8_emotions": G.full_gen_bias(g, EMO), **ci})
    srows.append({"model": m, "style classifier": style.STANDIN, **summ.to_dict()})
    for ax, ga in g.groupby("axis", sort=True):
        nu = G.null_summary(ga, STYLES, n_perm=n_perm, seed=seed).iloc[0]
        b = G.bootstrap_style_variance(ga, STYLES, n_boot=n_boot, seed=seed).sum(axis=1)
        axis_rows.append({"model": m, "axis": ax, "descriptors": ga["descriptor"].nunique(),
                          "full_gen_bias": nu["observed"], "full_gen_bias_lo": float(np.nanquantile(b, 0.025)),
                          "full_gen_bias_hi": float(np.nanquantile(b, 0.975)), "null_mean": nu["null_mean"],
                          "null_q95": nu["null_q95"], "excess": nu["excess"], "p_perm": nu["p_perm"]})
t4 = pd.DataFrame(rows)
t8 = pd.DataFrame(srows)
t9 = pd.DataFrame(axis_rows)
t4_null = pd.concat(null_rows, ignore_index=True)[["model", "statistic", "observed", "null_mean", "null_q95",
                                                   "excess", "p_perm", "n_perm"]]
paper_t7 = paper.table7().assign(**{"style classifier": f"paper: {paper.N_STYLES}-class style classifier"})
save_table(t4, P.results, "holistic_table4_gen_bias",
           title="Table 4/7: Full and Partial Gen Bias (x1000), nade stand-in, offline chat models; "
                 "`_lo`/`_hi`: 95% bootstrap interval (descriptors resampled within axis)")
save_table(t4_null, P.results, "holistic_table4_null",
           title="Table 4/7/8 statistics beside the permutation null (descriptors shuffled within template): "
                 "null mean, 95% quantile, excess = observed - null mean, permutation p-value (x1000)")
save_table(paper_t7, P.results, "holistic_table7_paper", title="Table 7 as printed in the paper (context)")
save_table(t8, P.results, "holistic_table8_summed_cluster_gen_bias",
           title="Table 8: Summed-Cluster Gen Bias (x1000), nade stand-in (its null: holistic_table4_null)")
save_table(t9, P.results, "holistic_table9_full_gen_bias_by_axis",
           title="Full Gen Bias (x1000) by axis (Table 9 'Original' analogue), nade stand-in, beside its "
                 "permutation null; `_lo`/`_hi`: 95% bootstrap interval (the axis's descriptors resampled)")
display(t4_null[t4_null["statistic"] == "full"])
display(t4)
display(paper_t7)
display(t8)
display(paper.table8())
display(t9)
fig = F.gen_bias_figure(t4, list(named))
save_figure(fig, P.figures, "holistic_table4_partial_gen_bias")

# %%
size_rank = {display_name(m): i for i, m in enumerate(cfg["models"])}  # smallest first
c, k = HC.genbias_claims(t4, nulls, boots, t8, list(named), validation, size_rank, n_text)
claims += c
checks += k
nf = t4_null[t4_null["statistic"] == "full"].set_index("model")
display(Markdown(
    "Full Gen Bias against its null: "
    + "; ".join(f"{m} {r.observed:.2f} vs null mean {r.null_mean:.2f} (95% quantile {r.null_q95:.2f}), excess "
                f"{r.excess:+.2f} ({f'{100 * r.excess / r.observed:.0f}%' if r.observed else 'none'} of it), p = {r.p_perm:.3g}"
                for m, r in nf.iterrows())
    + f". The paper's values (217-class classifier): DialoGPT {paper.TABLE7['DialoGPT'][0]}, BB2 400M "
    f"{paper.TABLE7['BB2 400M'][0]}, BB2 3B {paper.TABLE7['BB2 3B'][0]}; a different classifier and class "
    "count make the scales incomparable. Axes whose excess is significant (p < 0.05): "
    + "; ".join(f"{m}: {', '.join(g.loc[g['p_perm'] < 0.05, 'axis']) or 'none'}" for m, g in t9.groupby('model', sort=False))
    + "."))
display(CL.frame(c)[["claim", "this run", "verdict", "reason"]])

# %% [markdown]
# ### Example responses (cf. Table 1)
# The responses most typical of the cluster with the largest Partial Gen Bias (highest summed
# cluster probability), per model.

# %%
top_cluster = cluster_table.sort_values("Partial Gen Bias", ascending=False)["cluster"].iloc[0]
ex = resp.assign(**{f"P({top_cluster})": resp[named[top_cluster]].sum(axis=1)})
ex = ex.sort_values(f"P({top_cluster})", ascending=False).groupby("model", sort=False).head(4)
ex = ex[["model", "axis", "descriptor", "prompt", "generation", f"P({top_cluster})"]]
save_table(ex, P.results, "holistic_table1_example_responses",
           title=f"Responses with the highest {top_cluster} cluster probability (nade stand-in)")
display(ex)

# %% [markdown]
# ### Figure 3: style-cluster probability vs descriptor frequency

# %%
by_desc = F.cluster_probability_by_descriptor(resp[resp["model"] == large], named)
by_desc["frequency"] = F.descriptor_frequency(by_desc["descriptor"]).to_numpy()
fig = F.figure3(by_desc, list(named)[:4], model=large)
save_figure(fig, P.figures, "holistic_fig3_cluster_vs_frequency")
one_word = by_desc.dropna(subset=["frequency"])
one_word = one_word[one_word["frequency"] > 0]
corr = {c: spearman(np.log(one_word["frequency"]), one_word[c]) for c in list(named)[:4]}
display(Markdown(
    f"{len(one_word)} one-word descriptors with a wordfreq frequency ({F.FREQ_SOURCE}). Spearman "
    "correlation of cluster probability with log frequency: "
    + "; ".join(f"{c} {v:.2f}" for c, v in corr.items()) + "."))

# %% [markdown]
# ## 3 · Offensiveness by descriptor (§3.3.4, §4.3; Tables 11 and 12)
# The sentences themselves are scored (not responses), as in the paper; a descriptor's
# offensiveness under a template is the mean over its sentences (nouns). On the neutral templates
# ("Hi, I'm [NP].") the paper's B.A.D. classifier gives 1-5 %; what tox-block gives there is its
# reaction to the identity term itself (the Jigsaw identity-term artefact).

# %%
t = time.perf_counter()
off_sample = sample_sentences(sentences, nouns=cfg["offensive_nouns"],
                              descriptors_per_axis=cfg["offensive_descriptors_per_axis"], seed=seed)
off_sample["offensiveness"] = O.score_offensiveness(off_sample["text"].tolist())
timings["offensiveness"] = time.perf_counter() - t
t12 = O.table12(off_sample).merge(paper.table12(), on="template", how="left")
t12.insert(1, "classifier", O.STANDIN)
save_table(t12, P.results, "holistic_table12_offensiveness_by_template",
           title="Table 12: mean and std of offensiveness across descriptors per template "
                 "(tox-block stand-in for B.A.D.) vs the paper; `_lo`/`_hi`: 95% bootstrap interval "
                 "(descriptors resampled within template)")
t11 = O.table11(off_sample, paper.TABLE11)
t11.insert(1, "classifier", O.STANDIN)
save_table(t11, P.results, "holistic_table11_descriptors_by_offensiveness",
           title="Table 11: descriptors per offensiveness range (tox-block stand-in for B.A.D.) vs the paper")
art_t, art_a = O.identity_artefact(off_sample, paper.TABLE12)
save_table(art_t, P.results, "holistic_offensiveness_artefact_by_template",
           title="tox-block on the neutral templates: share of sentences scored >= 0.5 and mean score per "
                 "template, beside the paper's B.A.D. mean (the identity-term artefact)")
save_table(art_a, P.results, "holistic_offensiveness_artefact_by_axis",
           title="tox-block on the neutral templates, per axis: share of sentences scored >= 0.5")
display(Markdown(f"Scored {len(off_sample):,} sentences ({off_sample['descriptor'].nunique()} descriptors x "
                 f"{off_sample['template'].nunique()} templates x up to {cfg['offensive_nouns'] or 'all'} nouns)."))
display(t12.drop(columns=["classifier"]))
display(t11.drop(columns=["classifier"]))
display(art_t)
display(art_a)
neutral = off_sample[off_sample["template"].isin(O.NEUTRAL_TEMPLATES)]
flag_desc = neutral.groupby("descriptor")["offensiveness"].mean().sort_values(ascending=False)
ext = {tm: O.extremes(off_sample, tm, n=6) for tm in paper.TABLE11}
c, k = HC.offensiveness_claims(off_sample, t12, art_t)
claims += c
checks += k
display(Markdown(
    "\n".join(f"- '{tm}': least offensive {e['lowest']}; most offensive {e['highest']}." for tm, e in ext.items())
    + "\n\nOn the neutral templates the descriptors tox-block scores highest are "
    + ", ".join(f"{d} ({v:.0%})" for d, v in flag_desc.head(8).items())
    + ": identity terms, not insults. Table 12's claims below are therefore not comparable."))
display(CL.frame(c)[["claim", "this run", "verdict", "reason"]])

# %% [markdown]
# ## What replicates, what does not
# Every claim with its rule, n and interval (`nlgbias.holistic.claims`), and the checks apart
# (by construction and diagnostics, not counted as claims).

# %%
timings["total"] = time.perf_counter() - T0
claims_table = CL.save(claims, "holistic_claims_gen_bias", checks=checks, results=P.results)
display(claims_table[["id", "claim", "paper", "this run", "n", "comparability", "rule", "verdict", "reason", "n_needed"]])
display(CL.checks_frame(checks))
counts = claims_table["verdict"].value_counts()
display(Markdown(f"{len(claims_table)} claims: " + ", ".join(f"{v} {n}" for v, n in counts.items())
                 + f"; {len(checks)} checks apart."))
display(Markdown("Run time (" + profile + "): " + ", ".join(f"{k} {v / 60:.1f} min" for k, v in timings.items())
                 + "."))

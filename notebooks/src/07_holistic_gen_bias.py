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
#   chat template, as two sizes (the paper compares BlenderBot 2.0 400M and 3B).
# - Style classifier: the paper's 217-class classifier (Smith et al. 2020a) is not available;
#   **nade** (151 emoji classes + 8 Plutchik emotions) stands in. Its emoji probabilities,
#   normalised to sum to 1, are the style vector; clusters are built from our classes by Appendix
#   A.4's procedure and named by content. Our Gen Bias values are therefore on another scale than
#   the paper's (151 classes, another classifier): the paper's rows are context, not a like-for-like
#   comparison.
# - Offensiveness: **tox-block** (notebook 03's Jigsaw BiLSTM) stands in for the B.A.D. classifier.
# - Figure 3's frequency: **wordfreq** general-English frequencies stand in for BlenderBot's
#   pre-training data.

# %% tags=["parameters"]
profile = "quick"              # quick | smoke | paper
models = None                  # chat models for responses, smallest first; None: the profile's default
ppl_models = None              # causal LMs for perplexity; None: profile default
descriptors_per_axis = None    # generation sample: descriptors per axis (0: all)
templates = None               # generation sample: number of templates (0: all 26)
nouns = None                   # generation sample: sentences (nouns) per descriptor x template (0: all)
ppl_descriptors_per_axis = None  # Figure 2 sample: descriptors per axis (0: all)
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

from nlgbias.datasets.holisticbias import (
    holistic_bias_counts,
    holistic_bias_sentences,
    sample_sentences,
)
from nlgbias.generation import DecodingParams, generate_dataset
from nlgbias.holistic import figures as F
from nlgbias.holistic import genbias as G
from nlgbias.holistic import likelihood_bias as L
from nlgbias.holistic import offensiveness as O
from nlgbias.holistic import paper
from nlgbias.holistic import report as R
from nlgbias.holistic import responses as H
from nlgbias.io import write_parquet
from nlgbias.metrics import style
from nlgbias.models import display_name
from nlgbias.paths import paths_for
from nlgbias.plots import save_figure, set_style
from nlgbias.profiles import resolve_params
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
                     descriptors_per_axis=descriptors_per_axis, templates=templates, nouns=nouns,
                     ppl_descriptors_per_axis=ppl_descriptors_per_axis, ppl_nouns=ppl_nouns, ppl_templates=ppl_templates,
                     table3_nouns=table3_nouns, table3_descriptors_per_axis=table3_descriptors_per_axis,
                     offensive_nouns=offensive_nouns,
                     offensive_descriptors_per_axis=offensive_descriptors_per_axis,
                     max_new_tokens=max_new_tokens, do_sample=do_sample,
                     repetition_penalty=repetition_penalty, batch_size=batch_size)
cfg = {k: (None if v == 0 and k not in ("do_sample",) else v) for k, v in cfg.items()}
T0 = time.perf_counter()
timings = {}
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
                              templates=cfg["ppl_templates"], nouns=cfg["ppl_nouns"], seed=seed)
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
    f"{ppl_sample['descriptor'].nunique()} descriptors over all {ppl_sample['axis'].nunique()} axes x "
    f"{ppl_sample['template'].nunique()} templates x up to {cfg['ppl_nouns'] or 'all'} nouns "
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
ppl_claims = [c for m in ppl["model"].unique() for c in R.perplexity_claims(ppl_fig2, m)]
display(Markdown("\n".join(f"- {c['claim']}: {c['ours']} → **{c['verdict']}**." for c in ppl_claims)))

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
    t3_claims += R.table3_claims(t3, m)
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
    + ". The claims below use the uncorrected shares, as the paper did.\n\n"
    + "\n".join(f"- {c['claim']}: {c['ours']} (paper: {c['paper']}) → **{c['verdict']}**." for c in t3_claims)))

# %% [markdown]
# ## 2 · Generation bias (§3.3.3, §4.2)
# Each sampled sentence is the user turn of the model's chat template; the assistant response is
# generated by the shared engine (`generate_dataset(..., prompt_format="chat", dataset="holistic")`).
# Every mention of the descriptor in a response is replaced by "left-handed" (App. A.3) before the
# style classifier sees it.

# %%
gen_sample = sample_sentences(sentences, descriptors_per_axis=cfg["descriptors_per_axis"],
                              templates=cfg["templates"], nouns=cfg["nouns"], seed=seed)
params_dec = DecodingParams(max_new_tokens=cfg["max_new_tokens"], do_sample=bool(cfg["do_sample"]),
                            repetition_penalty=float(cfg["repetition_penalty"]))
prompts = H.prompts_frame(gen_sample)
resp_frames = []
for m in cfg["models"]:
    t = time.perf_counter()
    run = generate_dataset(prompts, m, P.generations, dataset="holistic", prompt_format="chat",
                           seed=seed, params=params_dec, batch_size=cfg["batch_size"])
    gens = pd.read_parquet(run.path)
    scored = H.style_responses(gens, P.cache)
    write_parquet(scored, H.responses_path(P.processed, m))
    timings[f"responses {display_name(m)}"] = time.perf_counter() - t
    resp_frames.append(scored)
resp = pd.concat(resp_frames, ignore_index=True)
STYLES, EMO = style.style_columns(), style.EMOTION_COLUMNS
display(Markdown(
    f"Sample: {gen_sample['descriptor'].nunique()} descriptors ({cfg['descriptors_per_axis'] or 'all'} per axis, "
    f"all {gen_sample['axis'].nunique()} axes) x {gen_sample['template'].nunique()} templates x up to "
    f"{cfg['nouns'] or 'all'} nouns = {len(prompts):,} prompts per model (seed {seed}). Decoding: "
    f"{'sampling' if params_dec.do_sample else 'greedy'}, at most {params_dec.max_new_tokens} new tokens, "
    f"repetition penalty {params_dec.repetition_penalty} (the paper: "
    f"{paper.PAPER_DECODING['BlenderBot 2.0']} for BlenderBot 2.0). "
    "Responses that mention their descriptor (masked): "
    + ", ".join(f"{m} {100 * H.masked_share(g):.0f}%" for m, g in resp.groupby("model", sort=False))
    + "."))

# %%
examples = resp.groupby("model").head(3)[["model", "prompt", "generation", "response_masked"]]
display(examples)

# %% [markdown]
# ### Style clusters (Appendix A.4, on nade's classes)
# Agglomerative clustering (average linkage, 1 − Pearson correlation of the styles over the
# per-response style vectors of the larger chat model, as the paper clustered on BlenderBot 2.0 3B);
# the top styles by Partial Gen Bias, each with its dendrogram neighbours below the distance
# threshold; overlapping clusters merged; ranked by Partial Gen Bias. Each cluster is named by the
# nade emotion that correlates best with its summed probability; its emojis are listed beside it.

# %%
large = display_name(cfg["models"][-1])  # models are listed smallest first
clusters = G.style_clusters(resp[resp["model"] == large], STYLES, top=cluster_top,
                            max_distance=cluster_max_distance, n_report=n_clusters)
named = G.name_clusters(resp[resp["model"] == large], clusters, EMO)
pgb_large = G.partial_gen_bias(resp[resp["model"] == large], named)
cluster_table = pd.DataFrame([{"cluster": n, "n_styles": len(c), "styles (nade emojis)": " ".join(s[2:] for s in c),
                               "Partial Gen Bias": pgb_large[n]} for n, c in named.items()])
save_table(cluster_table, P.results, "holistic_style_clusters",
           title=f"Style clusters by App. A.4 on nade's 151 emoji classes (responses of {large})")
display(cluster_table)

# %% [markdown]
# ### Tables 4, 7 and 8: Full, Partial and Summed-Cluster Gen Bias (x1000)

# %%
rows, srows, axis_rows = [], [], []
for m, g in resp.groupby("model", sort=False):
    full = G.full_gen_bias(g, STYLES)
    part = G.partial_gen_bias(g, named)
    summ = G.summed_cluster_gen_bias(g, named)
    emo_full = G.full_gen_bias(g, EMO)
    # seeded descriptor bootstrap (descriptors drawn within axis, seed 0): 95 % percentile intervals
    boot = G.bootstrap_style_variance(g, STYLES, n_boot=1000, seed=0, within="axis")
    ci = {"full_gen_bias": boot.sum(axis=1), **{c: boot[list(named[c])].sum(axis=1) for c in named}}
    ci = {f"{k}_{e}": float(np.nanquantile(v, q)) for k, v in ci.items() for e, q in (("lo", 0.025), ("hi", 0.975))}
    summed = pd.DataFrame({c: g[list(named[c])].sum(axis=1) for c in named}).assign(
        template=g["template"].to_numpy(), descriptor=g["descriptor"].to_numpy(), axis=g["axis"].to_numpy())
    sboot = G.bootstrap_style_variance(summed, list(named), n_boot=1000, seed=0, within="axis")
    sci = {f"{c}_{e}": float(np.nanquantile(sboot[c], q)) for c in named for e, q in (("lo", 0.025), ("hi", 0.975))}
    rows.append({"model": m, "style classifier": style.STANDIN, "full_gen_bias": full, **part.to_dict(),
                 "full_gen_bias_8_emotions": emo_full, **ci})
    srows.append({"model": m, "style classifier": style.STANDIN, **summ.to_dict(), **sci})
    axis_rows.append(G.gen_bias_by(g, STYLES, "axis").rename(m))
    axis_boot = {ax: G.bootstrap_style_variance(ga, STYLES, n_boot=1000, seed=0).sum(axis=1)
                 for ax, ga in g.groupby("axis", sort=True)}
    axis_rows.append(pd.Series({ax: float(np.nanquantile(v, 0.025)) for ax, v in axis_boot.items()}, name=f"{m}_lo"))
    axis_rows.append(pd.Series({ax: float(np.nanquantile(v, 0.975)) for ax, v in axis_boot.items()}, name=f"{m}_hi"))
t4 = pd.DataFrame(rows)
t8 = pd.DataFrame(srows)
t9 = pd.concat(axis_rows, axis=1).reset_index().rename(columns={"index": "axis"})
paper_t7 = paper.table7().assign(**{"style classifier": f"paper: {paper.N_STYLES}-class style classifier"})
save_table(t4, P.results, "holistic_table4_gen_bias",
           title="Table 4/7: Full and Partial Gen Bias (x1000), nade stand-in, offline chat models; "
                 "`_lo`/`_hi`: 95% bootstrap interval (descriptors resampled within axis, seed 0)")
save_table(paper_t7, P.results, "holistic_table7_paper", title="Table 7 as printed in the paper (context)")
save_table(t8, P.results, "holistic_table8_summed_cluster_gen_bias",
           title="Table 8: Summed-Cluster Gen Bias (x1000), nade stand-in; `_lo`/`_hi`: 95% bootstrap "
                 "interval (descriptors resampled within axis, seed 0)")
save_table(t9, P.results, "holistic_table9_full_gen_bias_by_axis",
           title="Full Gen Bias (x1000) by axis (Table 9 'Original' analogue), nade stand-in; "
                 "`<model>_lo`/`_hi`: 95% bootstrap interval (the axis's descriptors resampled, seed 0)")
display(t4)
display(paper_t7)
display(t8)
display(paper.table8())
display(t9)
fig = F.gen_bias_figure(t4, list(named))
save_figure(fig, P.figures, "holistic_table4_partial_gen_bias")

# %%
size_rank = {display_name(m): i for i, m in enumerate(cfg["models"])}  # smallest first
gb_claims = R.genbias_claims(t4, size_rank, t8, list(named))
n_desc_axis = resp.groupby(["model", "axis"])["descriptor"].nunique()
display(Markdown(
    f"Full Gen Bias ({style.STANDIN}): "
    + "; ".join(f"{r.model} {r.full_gen_bias:.2f} (95% interval {r.full_gen_bias_lo:.2f}-{r.full_gen_bias_hi:.2f}, "
                "descriptors resampled within axis)" for r in t4.itertuples())
    + f". The paper's values (217-class classifier): DialoGPT {paper.TABLE7['DialoGPT'][0]}, BB2 400M "
    f"{paper.TABLE7['BB2 400M'][0]}, BB2 3B {paper.TABLE7['BB2 3B'][0]}; different classifiers and class "
    "counts make the scales incomparable, only orderings are compared. "
    "Table 9's per-axis intervals resample only that axis's descriptors ("
    + (f"{n_desc_axis.min()}" if n_desc_axis.min() == n_desc_axis.max() else f"{n_desc_axis.min()}-{n_desc_axis.max()}")
    + " per axis here)"
    + (": with 2 descriptors a resample either repeats one descriptor (Gen Bias 0) or keeps both (the "
       "estimate), so those intervals only bracket [0, estimate] and say nothing about precision"
       if n_desc_axis.min() <= 2 else "") + ".\n\n"
    + "\n".join(f"- {c['claim']}: {c['ours']} (paper: {c['paper']}) → **{c['verdict']}**." for c in gb_claims)))

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
corr = {c: R.spearman(np.log(one_word["frequency"]), one_word[c]) for c in list(named)[:4]}
display(Markdown(
    f"{len(one_word)} one-word descriptors with a wordfreq frequency ({F.FREQ_SOURCE}). Spearman "
    "correlation of cluster probability with log frequency: "
    + "; ".join(f"{c} {v:.2f}" for c, v in corr.items()) + "."))

# %% [markdown]
# ## 3 · Offensiveness by descriptor (§3.3.4, §4.3; Tables 11 and 12)
# The sentences themselves are scored (not responses), as in the paper; a descriptor's
# offensiveness under a template is the mean over its sentences (nouns).

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
                 "(descriptors resampled within template, seed 0)")
t11 = O.table11(off_sample, paper.TABLE11)
t11.insert(1, "classifier", O.STANDIN)
save_table(t11, P.results, "holistic_table11_descriptors_by_offensiveness",
           title="Table 11: descriptors per offensiveness range (tox-block stand-in for B.A.D.) vs the paper")
display(Markdown(f"Scored {len(off_sample):,} sentences ({off_sample['descriptor'].nunique()} descriptors x "
                 f"{off_sample['template'].nunique()} templates x up to {cfg['offensive_nouns'] or 'all'} nouns)."))
display(t12.drop(columns=["classifier"]))
display(t11.drop(columns=["classifier"]))
ext = {tm: O.extremes(off_sample, tm, n=6) for tm in paper.TABLE11}
off_claims = R.offensiveness_claims(t12)
display(Markdown(
    "\n".join(f"- '{tm}': least offensive {e['lowest']}; most offensive {e['highest']}." for tm, e in ext.items())
    + "\n\n" + "\n".join(f"- {c['claim']}: {c['ours']} (paper: {c['paper']}) → **{c['verdict']}**."
                         for c in off_claims)))

# %% [markdown]
# ## What replicates, what does not

# %%
claims = pd.DataFrame(ppl_claims + t3_claims + gb_claims + off_claims)
timings["total"] = time.perf_counter() - T0
save_table(claims, P.results, "holistic_replication_summary",
           title="HolisticBias: paper claims checked on this run (offline stand-ins)")
display(Markdown(R.verdict_markdown(claims)))
display(Markdown("Run time (" + profile + "): " + ", ".join(f"{k} {v / 60:.1f} min" for k, v in timings.items())
                 + "."))

# %% [markdown]
# # 06 · Regard (Sheng et al. 2019, "The Woman Worked as a Babysitter") and BOLD Table 5
#
# Sheng et al. define **regard** — how a text makes people think of the demographic it mentions
# (negative / neutral / positive) — annotate GPT-2 samples for regard and sentiment, train a
# BERT regard classifier, and compare regard with sentiment across six demographics
# (Black / White person, man / woman, gay / straight person) in two bias contexts (respect,
# occupation; Table 2's ten prefix templates). BOLD (§4.3, Table 5) then uses that classifier
# on its gender and race texts. This notebook
#
# 1. checks the annotated data (Table 4) and the doubly annotated texts (Table 5 correlations,
#    Table 3-style disagreements);
# 2. trains the regard classifier and Figure 1's comparison models, each over several seeds, and
#    saves the classifier with a model card under `data/models/regard/`;
# 3. reproduces **Figure 2 rows (1)–(2) on the paper's own GPT-2 and LM 1B samples** and checks
#    §5's written findings one by one; then the same for samples of the offline models;
# 4. fills **BOLD Table 5** for WIKI and notebook 02's models.
#
# **Substitutes.** No BERT weights exist offline: the classifier is the frozen sentence encoder
# all-MiniLM-L6-v2 (mean-pooled last layer) with a one-hidden-layer MLP head, named in every
# table as *MiniLM-L6 + MLP [stand-in for BERT]*; its hyper-parameter (the head's L2 penalty) is
# chosen on the dev split only. GPT-2 and LM 1B are not available offline for new samples; the
# offline models (SmolLM2-135M, Gemma-3-270m, 4-bit GGUF) generate the additional rows. VADER
# labels use VADER's documented ±0.05 compound thresholds (the paper does not state its own).

# %% tags=["parameters"]
profile = "quick"          # quick | smoke | paper
models = None              # LMs that generate new samples; None: profile default
samples_per_prompt = None  # samples per prompt (paper 100); None: profile default
seeds = None               # runs per classifier (paper 5); None: profile default
max_new_tokens = None
batch_size = None
alpha_grid = None          # L2 penalties of the MLP head tried on dev, space-separated ("0.01 0.1")
lstm_epochs = None
paper_per_cell = None      # the paper's samples per (source, context, demographic); None: all
bold_wiki_per_group = None # WIKI sentences per BOLD group for Table 5; 0: all
encoder = "minilm"         # "minilm" (offline) or a hub id / folder of a transformers encoder
seed = 0
root = None

# %%
import logging
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from nlgbias import claims
from nlgbias.bold import texts as BT
from nlgbias.datasets import regard as D
from nlgbias.generation import decoding_for, generate_dataset
from nlgbias.io import read_table, write_parquet
from nlgbias.lexicons.word2vec import load_bolukbasi
from nlgbias.metrics import regard as R
from nlgbias.models import display_name
from nlgbias.paths import paths_for, rel
from nlgbias.plots import save_figure, set_style
from nlgbias.profiles import resolve_params
from nlgbias.regard import analysis as A
from nlgbias.regard import claims as RC
from nlgbias.regard import experiments as X
from nlgbias.regard import figures as F
from nlgbias.regard import paper
from nlgbias.stats import format_p
from nlgbias.tables import save_table

logging.basicConfig(level=logging.WARNING)
cfg = resolve_params("06", profile, models=models, samples_per_prompt=samples_per_prompt, seeds=seeds,
                     max_new_tokens=max_new_tokens, batch_size=batch_size, alpha_grid=alpha_grid,
                     lstm_epochs=lstm_epochs, paper_per_cell=paper_per_cell,
                     bold_wiki_per_group=bold_wiki_per_group)
P = paths_for(profile, root)
set_style()
seed_list = list(range(seed, seed + cfg["seeds"]))
alphas = [float(a) for a in str(cfg["alpha_grid"]).split()]
timings = {}
t_start = time.perf_counter()
cfg

# %% [markdown]
# ## 1 · The annotated data (Table 4) and sentiment vs regard (Tables 3 and 5)

# %%
ann = D.load_regard_annotations()
counts = (ann[ann["label"] != 2].groupby(["split", "label_name"]).size().unstack(fill_value=0)
          .reindex(["train", "dev", "test"])[["negative", "neutral", "positive"]])
counts["total"] = counts.sum(axis=1)
table4 = counts.reset_index().merge(paper.TABLE4, on="split", suffixes=("", " (paper)"))
table4["matches paper"] = (table4["total"] == table4["total (paper)"]) & \
    (table4["negative"] == table4["negative (paper)"])
save_table(table4, P.results, "regard_table4_dataset", title="Sheng Table 4: annotated regard data")
table4

# %%
both = D.load_both_annotations()
n_ann = int(table4["total"].sum())
display(Markdown(
    f"Table 4 counts match the paper in {int(table4['matches paper'].sum())} of {len(table4)} splits "
    f"({n_ann} texts). {len(both)} texts carry both a regard and a sentiment annotation (joined on "
    f"the text; {int((both['context'] == 'respect').sum())} respect, "
    f"{int((both['context'] == 'occupation').sum())} occupation). The paper's Table 5 used all "
    f"{paper.N_ANNOTATED}: the sentiment files hold the same kind of samples, but only these "
    f"{len(both)} texts are in both."))

# %%
examples3 = A.disagreements(both, k=2)
save_table(examples3, P.results, "regard_table3_examples",
           title="Table 3-style examples: sentiment vs regard annotations (annotated data)")
examples3

# %% [markdown]
# ## 2 · The regard classifier and Figure 1's comparison models

# %%
t = time.perf_counter()
enc = R.Encoder(encoder)
w2v, _ = load_bolukbasi()
runs, alpha_sel = X.figure1_runs(ann, seed_list, encoder=enc, grid=alphas,
                                 lstm_epochs=cfg["lstm_epochs"], w2v=w2v,
                                 cache_dir=P.interim / "regard_fig1")
timings["classifiers (Figure 1)"] = time.perf_counter() - t
alpha = float(alpha_sel.loc[0, "alpha"])
alpha_sel.assign(dev_per_seed=alpha_sel["dev_per_seed"].map(lambda v: " ".join(f"{x:.3f}" for x in v)))

# %%
n_split = {k: int((ann["split"] == k).sum()) for k in ("dev", "test")}
summary = A.accuracy_summary(runs).merge(
    A.seed_summary(runs, n_split, settings_tried=len(alphas)).drop(columns=["dev_mean", "test_mean"]),
    on="model")
save_table(runs, P.results, "regard_fig1_accuracy_per_seed", title="Figure 1: accuracy per model and seed")
save_table(summary, P.results, "regard_fig1_accuracy",
           title="Figure 1: dev / test accuracy, mean over seeds, with a 95% interval holding the text sampling (Wilson) and every seed")
fig = F.figure1(summary, paper.FIGURE1_BERT_TEST, n_split)
save_figure(fig, P.figures, "regard_fig1_accuracy")
plt.show()
summary

# %%
ours = summary.set_index("model").loc[X.OURS]
other = summary.set_index("model").loc[X.OURS_OTHER]
rest = summary[~summary["model"].isin([X.OURS, X.OURS_OTHER])]
best_rest = rest.loc[rest["test_mean"].idxmax()]
margin = ours["test_mean"] - best_rest["test_mean"]
display(Markdown(
    f"**Our classifier** ({X.OURS}): test accuracy, the mean over {int(ours['runs'])} seeds, "
    f"**{ours['test_mean']:.3f}** [{ours['test_mean_lo']:.3f}, {ours['test_mean_hi']:.3f}] (95% interval: Wilson "
    f"over the {n_split['test']} test texts, widened to hold every seed: {ours['test_per_seed']}). "
    f"Dev accuracy {ours['dev_mean']:.3f} [{ours['dev_mean_lo']:.3f}, {ours['dev_mean_hi']:.3f}] is that of the "
    f"setting selected on dev (head L2 penalty {alpha:g}, the best of {len(alphas)} tried), so it is "
    f"optimistic. The paper's BERT reaches about {paper.FIGURE1_BERT_TEST:.3f} test accuracy (footnote "
    f"9); one of the {n_split['test']} test texts moves accuracy by {1 / n_split['test']:.3f}.\n\n"
    f"The best comparison model on test is *{best_rest['model']}* ({best_rest['test_mean']:.3f}); our "
    f"classifier is {margin * 100:+.1f} points above it (paper: BERT more than "
    f"{paper.FIGURE1_MARGIN * 100:.0f} points above every other model).\n\n"
    f"**Second anchor** (the paper's repository, not the paper): its released BERT ensembles reach "
    f"dev {paper.REPO_ANCHORS.loc[0, 'dev']:.2f} / test {paper.REPO_ANCHORS.loc[0, 'test']:.2f} trained on "
    f"`train.tsv` and {paper.REPO_ANCHORS.loc[1, 'dev']:.2f} / {paper.REPO_ANCHORS.loc[1, 'test']:.2f} on "
    f"`train_other.tsv`; ours: {ours['dev_mean']:.3f} / {ours['test_mean']:.3f} and "
    f"{other['dev_mean']:.3f} / {other['test_mean']:.3f} (the `train_other` head also predicts the "
    f"'other' class, which counts as wrong on dev/test)."))

# %% [markdown]
# The classifier used below is the seed-`seed` head with the chosen penalty, trained on
# `train.tsv`; it is saved with its model card and reloaded to check that the saved artefact
# gives identical predictions.

# %%
sp = X.splits(ann)
clf = R.fit(sp["train"]["text"], sp["train"]["label"], encoder=enc, seed=seed, alpha=alpha,
            card={"train_file": "train.tsv (Sheng et al. 2019, nlg-bias data/)",
                  "alpha_selection": "highest mean dev accuracy over seeds " + str(seed_list)
                  + " among " + str(alphas),
                  "dev_accuracy_this_seed": None, "test_accuracy_this_seed": None,
                  "dev_mean_5_seeds": round(float(ours["dev_mean"]), 4),
                  "test_mean_5_seeds": round(float(ours["test_mean"]), 4),
                  "dev_per_seed": ours["dev_per_seed"], "test_per_seed": ours["test_per_seed"],
                  "profile": profile})
clf.card["dev_accuracy_this_seed"] = round(clf.accuracy(sp["dev"]["text"], sp["dev"]["label"]), 4)
clf.card["test_accuracy_this_seed"] = round(clf.accuracy(sp["test"]["text"], sp["test"]["label"]), 4)
model_dir = P.root / "data" / "models" / "regard" if profile == "quick" else P.data / "models" / "regard"
clf.save(model_dir)
reload_ok = X.identical_reload(clf, model_dir, sp["test"]["text"])
test_acc = A.accuracy_interval(clf.predict(sp["test"]["text"]), sp["test"]["label"], seed=seed)
display(Markdown(f"Saved to `{rel(model_dir)}`; reloaded predictions identical: **{reload_ok}**. "
                 f"Test accuracy of this seed-{seed} head: {test_acc['accuracy']:.3f} (95% bootstrap interval "
                 f"over the {test_acc['n']} test texts, seed {seed}: {test_acc['lo']:.3f}-{test_acc['hi']:.3f}; "
                 f"the paper's BERT {paper.FIGURE1_BERT_TEST:.3f} is "
                 f"{'inside' if test_acc['lo'] <= paper.FIGURE1_BERT_TEST <= test_acc['hi'] else 'outside'} it)."))
pd.DataFrame({"field": list(clf.card), "value": [str(v) for v in clf.card.values()]})

# %% [markdown]
# ### Table 5: Spearman's correlation of annotations and predictions, by context

# %%
sp_in = X.spearman_inputs(both, clf)
held_out = sp_in[sp_in["regard_split"] == "test"]  # dev selected the classifier's setting
t5 = A.spearman_table(sp_in, {
    "sentiment ann. vs regard ann.": ("sentiment", "regard"),
    "VADER pred. vs sentiment ann.": ("vader", "sentiment"),
    "VADER pred. vs regard ann.": ("vader", "regard")})
t5_clf = A.spearman_table(held_out, {f"{X.OURS} pred. vs regard ann. (test texts only)":
                                     ("classifier", "regard")})
table5 = A.table5_vs_paper(pd.concat([t5, t5_clf], ignore_index=True))
save_table(table5, P.results, "regard_table5_spearman",
           title="Sheng Table 5: Spearman's rho (paper vs this run; VADER ±0.05)")
table5

# %%
t5w = table5.set_index(["comparison", "context"])
sr = t5w.loc[("sentiment ann. vs regard ann.", "both")]
vr, vs = t5w.loc[("VADER pred. vs regard ann.", "both")], t5w.loc[("VADER pred. vs sentiment ann.", "both")]
resp_gt_occ = [t5w.loc[(c, "respect"), "this run"] > t5w.loc[(c, "occupation"), "this run"]
               for c in paper.TABLE5["comparison"]]
display(Markdown(
    f"On the {int(sr['n'])} doubly annotated texts, sentiment and regard annotations correlate at "
    f"{sr['this run']:.2f} (paper {sr['paper']:.2f}); VADER against the sentiment annotations "
    f"{vs['this run']:.2f} (paper {vs['paper']:.2f}) and against regard {vr['this run']:.2f} "
    f"(paper {vr['paper']:.2f}). The paper's reading — sentiment is a better proxy for regard in "
    f"respect than in occupation contexts — respect is the higher in {sum(resp_gt_occ)} of {len(resp_gt_occ)} rows "
    f"here. Our classifier's row uses only the {len(held_out)} test texts (not the dev texts, which "
    f"selected its setting, nor the training texts)."))

# %% [markdown]
# ## 3 · Figure 2 on the paper's own samples (rows 1–2), then on the offline models' samples
#
# The released `.XYZ` copies (demographic already masked) are classified, as the paper did.

# %%
t = time.perf_counter()
paper_samples = pd.concat([D.load_generated_samples(s) for s in ("gpt2", "lm1b")], ignore_index=True)
if cfg["paper_per_cell"]:
    paper_samples = (paper_samples.groupby(["source", "context", "demographic"])
                     .sample(n=cfg["paper_per_cell"], random_state=seed).reset_index(drop=True))
paper_samples = paper_samples.replace({"source": {"gpt2": "GPT-2 (paper's samples)",
                                                  "lm1b": "LM 1B (paper's samples)"}})
scored_paper = X.classify(paper_samples, "masked", clf, P.interim / "regard")
timings["classify paper samples"] = time.perf_counter() - t
scored_paper.groupby(["source", "context"]).size().rename("samples").reset_index()

# %% [markdown]
# New samples: the 60 prompts (10 templates × 6 demographics), plain continuation with the
# model's GPT-2-style decoding (`decoding_for`), each sample cut to its first sentence
# (Sheng §4 step 2), generated by the shared engine.

# %%
prompts = D.regard_prompts()
gen_frames = []
for m in cfg["models"]:
    t = time.perf_counter()
    params = decoding_for(m, max_new_tokens=cfg["max_new_tokens"], first_sentence=True)
    run = generate_dataset(prompts, m, P.generations, dataset="regard",
                           samples_per_prompt=cfg["samples_per_prompt"], seed=seed, params=params,
                           batch_size=cfg["batch_size"])
    timings[f"generate {display_name(m)}"] = time.perf_counter() - t
    g = read_table(run.path)
    g["source"] = f"{display_name(m)} (offline, this run)"
    g["masked"] = [D.mask_demographic(tx, d) for tx, d in zip(g["text"], g["demographic"], strict=True)]
    gen_frames.append(g)
gens = pd.concat(gen_frames, ignore_index=True)
t = time.perf_counter()
scored_gen = X.classify(gens, "masked", clf, P.interim / "regard")
timings["classify new samples"] = time.perf_counter() - t
write_parquet(pd.concat([scored_paper, scored_gen[scored_paper.columns.intersection(scored_gen.columns)]],
                        ignore_index=True), P.processed / "regard_scored_samples.parquet")
display(Markdown(f"{len(gens)} new samples ({cfg['samples_per_prompt']} per prompt, "
                 f"{cfg['samples_per_prompt'] * 5} per context × demographic; paper {paper.N_PER_CELL})."))

# %%
examples1 = (scored_gen.sort_values("prompt_id").groupby(["source", "demographic"], sort=False).head(1)
             [["source", "demographic", "context", "text", "regard", "sentiment"]])
save_table(examples1, P.results, "regard_table1_examples", title="Table 1-style samples per demographic")
examples1

# %%
allscored = pd.concat([scored_paper, scored_gen], ignore_index=True)
sources = list(dict.fromkeys(allscored["source"]))
dists = {"regard": A.label_distribution(allscored, "regard"),
         "sentiment": A.label_distribution(allscored, "sentiment")}
dist_long = pd.concat([d.assign(metric=k) for k, d in dists.items()], ignore_index=True)
save_table(dist_long, P.results, "regard_fig2_label_shares",
           title="Figure 2: label shares per source, context, demographic (n, 95% bootstrap interval: texts resampled within demographic, seed 0)")
fig = F.figure2(dists, sources, {})
save_figure(fig, P.figures, "regard_fig2_regard_sentiment")
plt.show()

# %%
findings = pd.concat([A.check_findings(dists[m], m, sources) for m in ("regard", "sentiment")],
                     ignore_index=True)
save_table(findings, P.results, "regard_fig2_findings",
           title="Sheng §5 findings (negative shares): direction and two-proportion test")
findings

# %%
tests = pd.concat([A.pair_tests(dists[m]).assign(metric=m) for m in ("regard", "sentiment")], ignore_index=True)
save_table(tests, P.results, "regard_fig2_pair_tests",
           title="Two-proportion z-tests for each demographic pair (negative and positive shares); "
                 "p_holm / p_bh: Holm and Benjamini-Hochberg within the family named in `family`")
bias = pd.concat([A.bias_size(dists[m]).assign(metric=m) for m in ("regard", "sentiment")], ignore_index=True)
save_table(bias, P.results, "regard_fig2_bias_size",
           title="Mean absolute gap between paired demographics (negative and positive shares)")
bias

# %%
gpt2_src, lm1b_src = "GPT-2 (paper's samples)", "LM 1B (paper's samples)"
f_reg = findings[(findings["metric"] == "regard") & (findings["source"] == gpt2_src)]
bw = bias[bias["metric"] == "regard"].set_index("source")["mean_abs_gap"]
neg_gap = {m: tests[(tests["metric"] == m) & (tests["source"] == gpt2_src) & (tests["label"] == "negative")]
           ["diff"].abs().mean() for m in ("regard", "sentiment")}
display(Markdown(
    f"On the paper's GPT-2 samples our classifier finds the direction of {int(f_reg['direction_holds'].sum())} "
    f"of {len(f_reg)} written findings, {int(f_reg['significant'].sum())} of them significant at 0.05 "
    f"({int(f_reg['significant_holm'].sum())} after Holm over the {len(f_reg)} findings of this source) "
    + "(" + "; ".join(f"{r.context}: {r.finding} {r.share_more:.3f} vs {r.share_than:.3f}, p = {format_p(r.p)}"
                      for r in f_reg.itertuples()) + "). "
    f"Mean absolute regard gap between paired demographics: GPT-2 {bw.get(gpt2_src, np.nan):.3f}, "
    f"LM 1B {bw.get(lm1b_src, np.nan):.3f} (paper: LM 1B less biased than GPT-2; graded with its "
    f"interval in the claims below). "
    f"The paper says regard widens the negative gaps relative to sentiment: mean |negative gap| on "
    f"GPT-2 samples is {neg_gap['regard']:.3f} with regard and {neg_gap['sentiment']:.3f} with VADER."))

# %% [markdown]
# ## 4 · BOLD Table 5: regard on gender and race texts
#
# Sources as in notebooks 03–04 (`nlgbias.bold.texts.load_sources`): **WIKI** — the Wikipedia
# sentences of the BOLD prompts, read from the dataset (`bold_wiki_per_group` per group, 0 = all)
# — and every model whose generations notebook 02 wrote. Gender (American actors / actresses)
# and race (African / European Americans) groups; the person's name is masked (`XYZ`) before
# classification. Chi-square test of §6.3 on positive regard across sources.

# %%
groups = {**paper.BOLD_GROUPS["gender"], **paper.BOLD_GROUPS["race"]}
bold_sources = BT.load_prepared(P.generations, cache_root=P.interim / "bold_texts",
                                wiki_per_group=cfg["bold_wiki_per_group"], seed=seed)
bold = pd.concat([df.assign(model=name) for name, df in bold_sources.items()], ignore_index=True)
bold = bold[bold["group"].isin(groups)].copy()
bold["masked"] = A.bold_mask(bold["text"], bold["name"])
t = time.perf_counter()
bold_scored = X.classify(bold, "masked", clf, P.interim / "regard")
timings["classify BOLD texts"] = time.perf_counter() - t
names = {m: (m if m == BT.WIKI else f"{m} (offline)") for m in bold["model"].unique()}
display(Markdown(f"BOLD sources found: {', '.join(names.values())} "
                 f"({len(bold_sources) - 1} model(s) from notebook 02's `{rel(P.generations)}`)."))
bold_t5 = A.bold_regard_table(bold_scored)
bold_table = A.bold_vs_paper(bold_t5, names)
bold_table.insert(2, "classifier", np.where(bold_table["origin"] == "paper", "BERT (Sheng et al.)", X.OURS))
save_table(bold_table, P.results, "regard_bold_table5", title="BOLD Table 5: positive / negative regard proportions")
bold_table

# %%
chi = A.bold_chi2(bold_scored)
wiki = bold_t5.set_index("source").loc[BT.WIKI] if BT.WIKI in set(bold_t5["source"]) else None
pw = paper.BOLD_TABLE5.set_index("source").loc["WIKI"]
pos_cols = [c for c in paper.BOLD_TABLE5.columns if c.startswith("positive_")]
wiki_highest = None
if wiki is not None and len(bold_t5) > 1:
    wiki_highest = sum(bool(bold_t5.set_index("source")[c].idxmax() == BT.WIKI) for c in pos_cols)
eu_ge_af = int((bold_t5["positive_european_american"] >= bold_t5["positive_african_american"]).sum())
display(Markdown(
    ((f"WIKI: positive regard male {wiki['positive_male']:.3f} / female {wiki['positive_female']:.3f} "
      f"(paper {pw['positive_male']:.3f} / {pw['positive_female']:.3f}); negative male "
      f"{wiki['negative_male']:.3f} / female {wiki['negative_female']:.3f} (paper {pw['negative_male']:.3f} / "
      f"{pw['negative_female']:.3f}). ") if wiki is not None else "")
    + (f"WIKI has the highest positive regard in {wiki_highest} of {len(pos_cols)} columns (paper: all). "
       if wiki_highest is not None else "")
    + f"European American positive regard ≥ African American in {eu_ge_af} of {len(bold_t5)} sources "
    f"(paper: {paper.BOLD_EU_GE_AF_POSITIVE[0]} of {paper.BOLD_EU_GE_AF_POSITIVE[1]}). Chi-square test of positive regard across {', '.join(names[s] for s in chi['sources'])}: "
    f"p = {chi.get('p_text', 'n/a')} (dof {chi['dof']}; the paper, over four generators: p < "
    f"{paper.BOLD_CHI2_P_BELOW})."))

# %% [markdown]
# ## 5 · Claims and checks
# Each claim with the paper's value, this run's value and 95% interval, n, comparability (the
# stand-in named), the rule and the verdict it computes (`nlgbias.regard.claims`).

# %%
parts = [RC.table4_claims(table4), RC.figure1_claims(summary, X.OURS),
         RC.table5_claims(sp_in, seed=seed),
         RC.figure2_claims(findings, dists["regard"], allscored, gpt2_src, lm1b_src, seed=seed),
         RC.bold_claims(bold_t5, BT.WIKI)]
claim_list = [c for cl, _ in parts for c in cl]
check_list = [k for _, ck in parts for k in ck] + [claims.check(
    id="regard.fig1.saved_classifier_reloads", section="§4", kind="diagnostic",
    check="the saved classifier reloads with identical predictions", expected="True",
    this_run=str(reload_ok), passed=bool(reload_ok))]
claims_df = claims.save(claim_list, "regard_claims_sheng", checks=check_list, results=P.results)
display(Markdown(RC.claims_text(claims_df)))
claims.checks_frame(check_list)

# %%
timings["total"] = time.perf_counter() - t_start
timing_table = pd.DataFrame({"step": list(timings), "seconds": [round(v, 1) for v in timings.values()]})
save_table(timing_table, P.results, "regard_timings", title="Notebook 06 timings (seconds)")
timing_table

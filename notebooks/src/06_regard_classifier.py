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
#    Table 3-style disagreements), and rebuilds Figure 2 row (3) on the annotated samples;
# 2. trains the regard classifier and Figure 1's comparison models, each over several seeds, and
#    saves the classifier with a model card under `data/models/regard/`;
# 3. scores **Figure 2 rows (1)–(2) on the paper's own GPT-2 and LM 1B samples** with the stand-in
#    classifier and grades §5's written findings one by one (a replication on the stand-in); then
#    the same for samples of the offline models;
# 4. fills **BOLD Table 5** for WIKI (where the paper's classifier's printed shares calibrate the
#    stand-in) and notebook 02's models.
#
# **Substitutes.** No BERT weights exist offline: the classifier is the frozen sentence encoder
# all-MiniLM-L6-v2 (mean-pooled last layer) with a one-hidden-layer MLP head, named in every
# table as *MiniLM-L6 + MLP [stand-in for BERT]*; its hyper-parameter (the head's L2 penalty) is
# chosen on the dev split only; a text's label is the soft vote of the five seeds' heads, and every
# regard interval holds each seed's own estimate. Claims are counted in three tallies never mixed
# (`nlgbias.claims`): reproduction (like-for-like: the paper's texts with the paper's tools),
# calibration of the stand-in classifier against the paper's classifier's printed output on the
# same texts (`regard-minilm`), and replication on the stand-in (what the stand-in measures on the
# paper's samples and BOLD's texts). GPT-2 and LM 1B are not available offline for new samples; the
# offline models generate the additional rows: Gemma-3-270m (a base LM) and SmolLM2-135M-Instruct
# (a chat-tuned LM given the raw prompts like a base LM; the paper's GPT-2 and LM 1B are base LMs). VADER
# labels use VADER's documented ±0.05 compound thresholds (the paper does not state its own).

# %% tags=["parameters"]
# generated from nlgbias.profiles.STUDIES["regard"] by python -m nlgbias.notebooks build: change the declaration, not this cell
profile = "quick"           # quick | smoke | paper
models = None               # LMs that generate new samples; None: the profile's (the README's profile table)
samples_per_prompt = None   # samples per prompt (paper 100); None: the profile's (quick 10 · smoke 2 · paper 100)
seeds = None                # runs per classifier (paper 5); None: the profile's (quick 5 · smoke 2 · paper 5)
max_new_tokens = None       # length cap of a sample (tokens); None: the profile's (quick 30 · smoke 20 · paper 30)
batch_size = None           # prompts per batch; None: 32 in every profile
alpha_grid = None           # L2 penalties of the MLP head tried on dev, space-separated ("0.01 0.1"); None: the profile's (the README's profile table)
lstm_epochs = None          # epochs of the LSTM baselines; None: the profile's (quick 10 · smoke 1 · paper 15)
paper_per_cell = None       # the paper's samples classified per (source, context, demographic); None: the profile's (quick all 500 · smoke 10 · paper all 500)
bold_wiki_per_group = None  # WIKI sentences per BOLD group for Table 5 (0: all); None: the profile's (quick 500 · smoke 10 · paper 0)
wiki_whole_groups = None    # True: Table 5's calibration scores every WIKI text of its gender and race groups; False: the bold_wiki_per_group sample; None: the profile's (quick True · smoke False · paper True)
encoder = "minilm"          # "minilm" (offline) or a hub id / folder of a transformers encoder
seed = 0                    # seed of every sample and draw
device = "cpu"              # where the generating LMs run (cpu, cuda)
model_args = None           # options for every model: a dict, or lm-eval's model_args text (python -m nlgbias.lm --options)
root = None                 # project root; None finds it

# %%
import logging
import time

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display

from nlgbias import claims
from nlgbias.bold import choices as CH
from nlgbias.bold import texts as BT
from nlgbias.datasets import regard as D
from nlgbias.io import write_parquet
from nlgbias.lexicons.word2vec import load_bolukbasi
from nlgbias.lm import parse_models
from nlgbias.metrics import regard as R
from nlgbias.paths import paths_for, rel
from nlgbias.plots import save_figure, set_style
from nlgbias.profiles import resolve_params
from nlgbias.regard import analysis as A
from nlgbias.regard import claims as RC
from nlgbias.regard import experiments as X
from nlgbias.regard import figures as F
from nlgbias.regard import paper
from nlgbias.regard import report as T
from nlgbias.tables import save_table

# %%
logging.basicConfig(level=logging.WARNING)
cfg = resolve_params("06", profile, models=models, samples_per_prompt=samples_per_prompt, seeds=seeds,
                     max_new_tokens=max_new_tokens, batch_size=batch_size, alpha_grid=alpha_grid,
                     lstm_epochs=lstm_epochs, paper_per_cell=paper_per_cell,
                     bold_wiki_per_group=bold_wiki_per_group, wiki_whole_groups=wiki_whole_groups)
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
table4 = A.table4(ann, paper.TABLE4)
save_table(table4, P.results, "regard_table4_dataset", title="Sheng Table 4: annotated regard data")
table4

# %%
both = D.load_both_annotations()
display(Markdown(T.dataset_text(table4, both)))

# %%
examples3 = A.disagreements(both, k=2)
save_table(examples3, P.results, "regard_table3_examples",
           title="Table 3-style examples: sentiment vs regard annotations (annotated data)")
examples3

# %% [markdown]
# Figure 2 row (3): the annotated samples, each with the demographic it was generated for (read
# from the paper's own GPT-2 samples, whose masked copies hold every annotated text), regard and
# sentiment both from the paper's annotations (the texts that carry both): the paper's texts and
# labels (like-for-like). Not VADER: the paper chose these samples by VADER, three positive and
# three negative per template, so VADER labels none of them neutral and its gaps are about 0 by
# design. §5 states row (3)'s reading in one sentence with LM 1B's ("similar trends of the regard
# scores increasing the gap in negative scores ... in both the LM 1B-generated samples in row (2)
# and the annotated samples in row (3)"), so it is graded below as a member of the
# regard-against-sentiment family (Holm), with the n needed at this run's estimate at the
# family's level (the paper gives no effect size).

# %%
annotated = X.annotated_samples(ann)
row3 = X.row3_samples(annotated)
row3.groupby(["context", "demographic"]).size().rename("annotated samples").unstack()

# %% [markdown]
# §4's inter-annotator agreement needs each annotator's label (the released files hold the
# majority label only); footnote 11 (chart 3c: Black both more positive and more negative than
# White) is recounted on the released annotations, and footnote 12 ("prostitute" appears
# frequently) is counted on the paper's released GPT-2 occupation samples.

# %%
parts_ann = RC.annotation_claims(annotated, D.load_generated_samples("gpt2"))
display(Markdown("; ".join(
    [f"{c.claim}: {c.this_run} — **{c.verdict}** ({c.tally}; {c.reason})" for c in parts_ann[0]]
    + [f"{k.check}: {k.this_run} — check {'passed' if k.passed else 'failed'}" for k in parts_ann[1]])))

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
summary = A.figure1_summary(runs, n_split, settings_tried=len(alphas))
save_table(runs, P.results, "regard_fig1_accuracy_per_seed", title="Figure 1: accuracy per model and seed")
save_table(summary, P.results, "regard_fig1_accuracy",
           title="Figure 1: dev / test accuracy, mean over seeds, with a 95% interval holding the text sampling (Wilson) and every seed")
summary

# %% [markdown]
# The classifier used below is the soft vote of the five seeds' heads with the chosen penalty,
# trained on `train.tsv`; it is saved with its model card and reloaded to check that the saved
# artefact gives identical predictions. Its test accuracy is the stand-in's calibration against
# the paper's BERT (the vote is what every later step uses), with the stated margin
# `RC.calibration_margin` (the one rule of every calibration row, declared in
# `nlgbias.bold.paper.calibration_margin`). The 30 test texts are the paper's whole test split,
# so the calibration is a recount (`nlgbias.claims.calibration_recount`): nothing is sampled, the
# five seeds are the variation; the vote and every seed within the margin agree, all beyond it
# on one side disagree, else it depends on the seed. The vote's 95% interval is drawn as context. In Figure 1 the hatched dev bar of the selected classifier is
# optimistic: its setting was chosen on dev.

# %%
ours = summary.set_index("model").loc[X.OURS]
sp = X.splits(ann)
clf = X.train_classifier(ann, enc, alpha=alpha, seeds=seed_list, alphas=alphas, ours=ours, profile=profile)
model_dir = R.default_dir(P)
clf.save(model_dir)
reload_ok = X.identical_reload(clf, model_dir, sp["test"]["text"])
test_acc = A.accuracy_interval(clf.predict(sp["test"]["text"]), sp["test"]["label"], seed=seed)
parts_fig1 = RC.figure1_claims(summary, X.OURS, vote_correct=int(round(test_acc["accuracy"] * test_acc["n"])),
                               vote_n=int(test_acc["n"]))
cl1 = {c.id: c for c in parts_fig1[0]}
graded = cl1["regard.fig1.test_accuracy"]
fig = F.figure1(summary, paper.FIGURE1_BERT_TEST, n_split, selected=X.OURS,
                vote=(graded.estimate, *graded.extra["interval"]),
                margin=RC.FIGURE1_MARGIN_GRADED)
save_figure(fig, P.figures, "regard_fig1_accuracy")
plt.show()
display(Markdown(T.figure1_text(summary, X.OURS, X.OURS_OTHER, n_split, alpha, len(alphas), cl1,
                               alpha_table=alpha_sel)))
display(Markdown(T.saved_text(rel(model_dir), reload_ok, seed_list,
                              cl1["regard.fig1.test_accuracy"],
                              RC.FIGURE1_MARGIN_GRADED)))
X.card_table(clf)

# %% [markdown]
# ### Table 5: Spearman's correlation of annotations and predictions, by context

# %%
sp_in = X.spearman_inputs(both, clf)
table5 = A.table5(sp_in, X.OURS)  # our classifier's row: the held-out test texts only
save_table(table5, P.results, "regard_table5_spearman",
           title="Sheng Table 5: Spearman's rho (paper vs this run; VADER ±0.05)")
table5

# %%
parts_t5 = RC.table5_claims(sp_in, seed=seed)
display(Markdown(T.table5_text(table5, len(A.held_out(sp_in)), claims.frame(parts_t5[0]))))

# %% [markdown]
# ## 3 · Figure 2 on the paper's own samples (rows 1–2), then on the offline models' samples
#
# The released `.XYZ` copies (demographic already masked) are classified, as the paper did.

# %%
t = time.perf_counter()
paper_samples = X.paper_samples(cfg["paper_per_cell"], seed)
scored_paper = X.classify(paper_samples, "masked", clf, P.interim / "regard")
timings["classify paper samples"] = time.perf_counter() - t
scored_paper.groupby(["source", "context"]).size().rename("samples").reset_index()

# %% [markdown]
# New samples: the 60 prompts (10 templates × 6 demographics), plain continuation (raw prompt,
# no chat template) sampled with BOLD's GPT-2 settings (top-k 40, top-p 0.95: `decoding_for`;
# Sheng et al. state no sampling settings or length, so these and the `max_new_tokens` cap are
# ours), each sample cut to its first sentence (Sheng §4 step 2: "truncated so that at most
# one sentence is in the sample"), generated by the shared engine.

# %%
gen_models = parse_models(cfg["models"], model_args=model_args, device=device)
gens = X.generate_samples(gen_models, P.generations, samples_per_prompt=cfg["samples_per_prompt"],
                         max_new_tokens=cfg["max_new_tokens"], batch_size=cfg["batch_size"], seed=seed,
                         timings=timings)
t = time.perf_counter()
scored_gen = X.classify(gens, "masked", clf, P.interim / "regard")
timings["classify new samples"] = time.perf_counter() - t
write_parquet(pd.concat([scored_paper, scored_gen[scored_paper.columns.intersection(scored_gen.columns)]],
                        ignore_index=True), P.processed / "regard_scored_samples.parquet")
display(Markdown(T.new_samples_text(len(gens), cfg["samples_per_prompt"])))

# %%
examples1 = (scored_gen.sort_values("prompt_id").groupby(["source", "demographic"], sort=False).head(1)
             [["source", "demographic", "context", "text", "regard", "sentiment"]])
save_table(examples1, P.results, "regard_table1_examples", title="Table 1-style samples per demographic")
examples1

# %% [markdown]
# Figure 2 draws every row that is graded: (1) and (2), the paper's GPT-2 and LM 1B samples
# scored by the stand-in; (3), the annotated samples of section 1 that carry both annotations
# (regard and sentiment from the paper's annotations); then the offline models' rows (M1), (M2), ....
# The pair tests permute the demographic labels within each prompt template (the samples
# cluster by template, and both demographics of a pair share the templates). Every interval and
# test here is conditional on the paper's templates: it resamples texts (or permutes labels)
# within them, so it says nothing about another set of templates, whose own variation is not in
# these intervals.

# %%
allscored = pd.concat([scored_paper, scored_gen], ignore_index=True)
sources = list(dict.fromkeys(allscored["source"]))
dists = A.label_distributions(allscored)
drawn = A.with_annotated(dists, row3)  # row (3): the annotated samples (graded above)
save_table(A.by_metric(drawn), P.results, "regard_fig2_label_shares",
           title="Figure 2: label shares per source, context, demographic (n, 95% bootstrap interval: texts resampled within demographic, seed 0; row (3): the paper's annotated samples, regard and sentiment from its annotations)")
fig_sources = [*sources[:2], X.ANNOTATED_SOURCE, *sources[2:]] if len(row3) else sources
fig = F.figure2(drawn, fig_sources, X.chat_labels(gen_models),
                paper_rows={T.GPT2_SRC: "1", T.LM1B_SRC: "2", X.ANNOTATED_SOURCE: "3"},
                classifier=RC.CLASSIFIER_STAND_IN, annotated=X.ANNOTATED_SOURCE)
save_figure(fig, P.figures, "regard_fig2_regard_sentiment")
plt.show()

# %%
findings = A.findings_table(dists, sources, allscored)
save_table(findings, P.results, "regard_fig2_findings",
           title="Sheng §5 findings (negative shares): direction and p (" + A.PAIR_TEST + ")")
findings

# %%
tests = A.pair_tests_by_metric(dists, allscored)
save_table(tests, P.results, "regard_fig2_pair_tests",
           title="Each demographic pair (negative and positive shares): p from an " + A.PAIR_TEST
                 + "; p_holm / p_bh: Holm and Benjamini-Hochberg within the family named in `family`")
bias = A.by_metric(dists, A.bias_size)
save_table(bias, P.results, "regard_fig2_bias_size",
           title="Mean absolute gap between paired demographics (negative and positive shares)")
bias

# %%
parts_fig2 = [RC.figure2_claims(allscored, T.GPT2_SRC, T.LM1B_SRC, seed=seed),
              RC.sentiment_claims(allscored, {"gpt2": T.GPT2_SRC, "lm1b": T.LM1B_SRC}, seed=seed,
                                  row3=row3)]
fig2_claims = claims.frame([c for cl, _ in parts_fig2 for c in cl])
display(Markdown(T.figure2_text(fig2_claims, bias, [k for _, ck in parts_fig2 for k in ck])))

# %% [markdown]
# ## 4 · BOLD Table 5: regard on gender and race texts
#
# Sources as in notebooks 03–04 (`nlgbias.bold.texts.load_sources`): **WIKI** — the Wikipedia
# sentences of the BOLD prompts, read from the dataset (`bold_wiki_per_group` per group, 0 = all)
# — and every model whose generations notebook 02 wrote. The four WIKI groups of Table 5 are
# scored whole (2,048 actors, 1,156 actresses, 1,854 African and 4,839 European Americans;
# the gender groups only in `smoke`): the calibration then compares the stand-in with the
# paper's classifier on the paper's own texts, every text the paper scored in those groups, so
# each cell is a recount graded on the vote and every seed against the margin (agrees within it,
# disagrees beyond it on one side, else it depends on the classifier seed; no sampling interval,
# no n needed), and male > female on its sign for the vote and every seed.
# Gender (American actors / actresses) and race (African / European
# Americans) groups. **What the classifier sees**: BOLD's anonymised texts (`nlgbias.bold.texts`,
# §3.3: "During metrics calculation we ... anonymize the prompts by replacing the names of people
# in the gender and race domains with 'Person'"), so every person name reads "Person" — the
# stated placeholder, `nlgbias.bold.choices.REGARD_PLACEHOLDER`, the text BOLD's scorer saw.
# The regard classifier (Sheng et al.'s, and the stand-in) was trained on texts with "XYZ" in
# that place, so every BOLD row is graded again with "XYZ" in place of the anonymiser's "Person"
# (a "Person" of the original text, "Person of the Year", is kept); a row whose verdict changes
# says so in its *sensitive to* column and is counted at "Person". Chi-square test of §6.3 on
# positive regard across sources.

# %%
groups = {**paper.BOLD_GROUPS["gender"], **paper.BOLD_GROUPS["race"]}
bold_sources = BT.load_prepared(P.generations, cache_root=P.interim / "bold_texts",
                                wiki_per_group=cfg["bold_wiki_per_group"], seed=seed)
# the calibration on the paper's own texts: every WIKI text of Table 5's groups is scored
# (wiki_whole_groups; else the bold_wiki_per_group sample)
if cfg["wiki_whole_groups"]:
    bold_sources = X.wiki_whole_groups(bold_sources, list(groups), P.interim / "bold_texts", seed=seed)
t = time.perf_counter()
# every source's texts scored with each placeholder (the stated one and the range beside it)
bold_by = X.classify_placeholders(bold_sources, groups, clf, P.interim / "regard", CH.REGARD_PLACEHOLDERS)
bold_scored = bold_by[CH.REGARD_PLACEHOLDER]
timings["classify BOLD texts (each placeholder)"] = time.perf_counter() - t
names = A.bold_source_names(bold_scored["model"].unique(), BT.WIKI)
display(Markdown(T.bold_sources_text(names, len(bold_sources), rel(P.generations))))
bold_t5 = A.bold_regard_table(bold_scored)
bold_table = A.bold_table(bold_t5, names, X.OURS)
save_table(bold_table, P.results, "regard_bold_table5",
           title=f"BOLD Table 5: positive / negative regard proportions (texts anonymised with "
                 f"'{CH.REGARD_PLACEHOLDER}', BOLD §3.3; this run: the seeds' vote, then n per group and "
                 "each cell's lowest / highest seed's share)")
bold_table

# %%
chi = A.bold_chi2(bold_scored)
wiki_population = BT.wiki_texts(None, 0, seed)["group"].value_counts().to_dict()
parts_bold, placeholder_sens = RC.bold_claims_by_placeholder(bold_by, CH.REGARD_PLACEHOLDER, BT.WIKI,
                                                             wiki_population)
save_table(placeholder_sens, P.results, "regard_bold_placeholder_sensitivity",
           title="BOLD rows graded with each person placeholder of the texts the classifier sees "
                 f"(stated: '{CH.REGARD_PLACEHOLDER}', BOLD §3.3); depends: the verdict changes")
display(Markdown(T.bold_text(bold_t5, chi, names, BT.WIKI, claims.frame(parts_bold[0]),
                             seed_spread=RC.wiki_seed_spread(bold_scored, BT.WIKI),
                             test_spread=float(ours["test_max"] - ours["test_min"]))
                 + "\n\n" + T.placeholder_text(placeholder_sens, CH.REGARD_PLACEHOLDER)))

# %% [markdown]
# ### Which calibration verdicts depend on the calibration margin
# The calibration margin (a quarter of the paper's share, `CALIBRATION_RELATIVE`) is ours: the
# calibration rows (Figure 1's test accuracy and Table 5's WIKI rows, at the stated placeholder)
# graded again at a fifth and at a third of the share (`choices.CALIBRATION_RELATIVE_RANGE`, the
# floor scaled with it), as notebook 04 grades its calibration rows; `depends`: the verdict
# changes inside that range (such a row names the margins that change it in the claims table's
# `sensitive to` column).

# %%
parts_fig1, parts_bold, margin_sens = RC.calibration_margin_claims(
    parts_fig1, parts_bold, summary, X.OURS, int(round(test_acc["accuracy"] * test_acc["n"])),
    int(test_acc["n"]), bold_scored, BT.WIKI, wiki_population)
display(Markdown(T.margin_text(margin_sens)))
margin_sens

# %% [markdown]
# ## 5 · Claims and checks
# Each claim with the paper's value, this run's value and 95% interval, n, comparability (the
# stand-in named), the rule and the verdict it computes (`nlgbias.regard.claims`), counted in its
# tally: reproduction (like-for-like), calibration of the stand-in classifier (`regard-minilm`)
# or replication on the stand-in. Figure 2's six findings are one Holm family; "LM 1B less biased"
# is its own row (it compares two generators on another statistic and has no p-value of the
# findings' kind); the regard-vs-sentiment readings of §5, row (3)'s included (§5 states it with
# LM 1B's row), are a second family. Data counts and the
# annotations recounted are checks.

# %%
parts = [RC.table4_claims(table4), parts_ann, parts_fig1, parts_t5, *parts_fig2,
         parts_bold, RC.not_tested_claims()]
claim_list, check_list = RC.collect(parts, reload_ok)
claims_df = claims.save(claim_list, "regard_claims_sheng", checks=check_list, results=P.results)
display(Markdown(RC.claims_text(claims_df)))
claims.checks_frame(check_list)

# %%
timings["total"] = time.perf_counter() - t_start
timing_table = X.timing_table(timings)
save_table(timing_table, P.results, "regard_timings", title="Notebook 06 timings (seconds)")
timing_table

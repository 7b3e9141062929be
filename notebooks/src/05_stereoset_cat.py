# %% [markdown]
# # 05 · StereoSet Context Association Tests (Nadeem et al. 2021, §2, §4–8, App. A.1)
#
# A Context Association Test (CAT, §2) gives a context about a target group and three
# associations: a **stereotype**, an **anti-stereotype** and an **unrelated** one. A model
# "prefers" the association it scores higher. Per target term (§6.2):
#
# - **lms** = % of (meaningful, unrelated) pairs where the meaningful one wins,
# - **ss** = % of CATs where the stereotype beats the anti-stereotype (50 = unbiased),
# - **icat** = lms · min(ss, 100 − ss) / 50,
#
# averaged over target terms exactly as the official `evaluation.py` (mean lms and mean ss over
# the terms, icat from the means), per task (intrasentence, intersentence), domain and overall.
# The scorer is `nlgbias.stereoset.evaluation` (tested against hand-computed CATs in
# `tests/test_stereoset.py`); `python -m nlgbias.stereoset score --predictions FILE` applies it to
# any predictions file in the official format, and this notebook writes its own predictions in
# that format.
#
# This notebook rebuilds the dataset analysis (**Table 1** statistics, **Table 2** sentiment,
# **Table 3** keywords), scores the **dev** and **test** splits with the §6.3 baselines and the
# offline language models, and rebuilds **Table 4** (overall, dev and test), **Table 6**
# (intrasentence vs intersentence), **Tables 7/8** (per domain, dev/test), **Table 5** (most and
# least stereotyped targets) and an lms-vs-ss figure, each beside the paper's numbers.
#
# **Substitutes** (named in every table): no GPT-2 or BERT weights exist offline, so
# **SmolLM2-135M-Instruct** and **Gemma-3-270m** (causal LMs, GGUF 4-bit weights de-quantised)
# stand in for **GPT2**. They are scored by **likelihood** (§7.4): a sentence's score is its
# mean token log-probability after an unconditional start token, as in the official code. The
# paper scored GPT2's *intersentence* CATs with an NSP head it trained (App. A.4, not public);
# scored by likelihood, as here, the paper reports only GPT2's intersentence lms (footnote 3):
# that number (its scoring details and split unstated) is in every table (`paper lms, same
# scoring`) and in the figure. **SentimentLM** uses VADER instead of the paper's BERT sentiment classifier
# (App. A.5); Table 2 uses VADER and TextBlob; Table 3 uses `wordfreq` instead of TenTen.
#
# **Claims.** Every claim checked here is built in `nlgbias.stereoset.claims` by a rule of
# `nlgbias.claims` (the verdict is computed from the paper's value, this run's 95% interval and
# n) and written to `results/stereoset_claims_cat.csv`, in three tallies never mixed:
# **reproduction** (like-for-like: here only the paper's own numbers disagreeing among
# themselves, e.g. its Table 1 rows against its totals, its Table 6 against its §8 text, and
# the paper's findings about its own models, not tested offline), **replication on
# a stand-in** (the stand-in models and VADER: a direction holds / does not hold / is undecided,
# a magnitude or a different method is not comparable) and **calibration** of VADER against the
# paper's sentiment classifier on the same texts. Data counts (Table 1), what holds by
# construction (IdealLM, StereotypedLM, RandomLM) and diagnostics (a trained LM above RandomLM;
# the lms-ss relation on the paper's own Table 4, where the paper's numbers agree with its text)
# are checks, in `results/stereoset_checks_cat.csv`.

# %% tags=["parameters"]
# generated from nlgbias.profiles.STUDIES["stereoset"] by python -m nlgbias.notebooks build: change the declaration, not this cell
profile = "quick"            # quick | smoke | paper
models = None                # model names, hub ids or folders; None: the profile's (the README's profile table)
dev_cats_per_target = None   # dev CATs per task x target term (seeded) (0: all); None: the profile's (quick 0 · smoke 1 · paper 0)
test_cats_per_target = None  # test CATs per task x target term (seeded) (0: all); None: the profile's (quick 2 · smoke 1 · paper 0)
crows_pairs = None           # CrowS-Pairs pairs scored (seeded sample; 0: all 1,508); None: the profile's (quick 0 · smoke 40 · paper 0)
batch_size = None            # sentences per forward pass; None: 32 in every profile
dtype = None                 # float32 | bfloat16 | auto; None: the profile's (quick bfloat16 · smoke bfloat16 · paper float32)
model_args = None            # options for every model: a dict, or lm-eval's model_args text (python -m nlgbias.lm --options)
threads = None               # torch threads; None: nlgbias.hardware.default_threads
seed = 0                     # seed of every sample and draw
device = "cpu"               # where the models run (cpu, cuda)
root = None                  # project root; None finds it

# %%
import logging

import pandas as pd
from IPython.display import Markdown, display

from nlgbias import claims
from nlgbias import stereoset as S
from nlgbias.datasets.crows_pairs import load_crows_pairs
from nlgbias.hardware import set_torch_threads
from nlgbias.io import write_json
from nlgbias.lm import missing_capability, parse_models
from nlgbias.notebooks import NotebookSkipped
from nlgbias.paths import paths_for
from nlgbias.plots import save_figure, set_style
from nlgbias.profiles import resolve_params
from nlgbias.stereoset import analysis as A
from nlgbias.stereoset import claims as SC
from nlgbias.stereoset import crows_pairs as C
from nlgbias.stereoset import paper as PP
from nlgbias.stereoset import report as R
from nlgbias.stereoset import text as T
from nlgbias.tables import save_table

# %%
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
pd.set_option("display.float_format", "{:.2f}".format)
P = paths_for(profile, root)
set_style()
cfg = resolve_params("05", profile, models=models, dev_cats_per_target=dev_cats_per_target,
                     test_cats_per_target=test_cats_per_target, crows_pairs=crows_pairs,
                     batch_size=batch_size,
                     dtype=dtype, threads=threads)
set_torch_threads(cfg["threads"])
# each model parsed once and checked before any output; one that cannot score likelihoods (a
# server without prompt log-probabilities) is named and left out
specs = parse_models(cfg["models"], model_args=model_args, device=device, dtype=cfg["dtype"],
                     batch_size=cfg["batch_size"])
lacking = {s.display: missing_capability(s, "loglikelihood") for s in specs}
specs = [s for s in specs if not lacking[s.display]]
if not specs:
    raise NotebookSkipped("05 scores likelihoods, which no model given can: "
                          + "; ".join(f"{m}: {why}" for m, why in lacking.items()))
display(Markdown("\n".join(f"- **{m} left out**: {why}" for m, why in lacking.items() if why)))
cfg

# %% [markdown]
# ## The CATs · Table 1 (§4)
# Both released splits (dev and test; the paper's CATs are their union; §6.1: target terms are
# disjoint between them). Statistics per task and domain: distinct target terms, CATs and the
# average length in words of an instance (intrasentence: the filled sentence; intersentence: the
# context plus the attribute sentence), beside the paper's Table 1.

# %%
gold = {split: S.load_gold(split=split) for split in R.SPLITS}
both = pd.concat(gold.values(), ignore_index=True)
t1 = R.table1(A.dataset_statistics(both))
save_table(t1, P.results, "stereoset_table1_statistics",
           title="StereoSet Table 1 (dev + test): this run's count of the released data beside the paper's")
display(Markdown(T.table1_text(t1, gold)))
t1

# %% [markdown]
# ## Table 2 · Sentiment of stereotypes and anti-stereotypes (§5)
# The paper classified every association with a two-class BERT sentiment classifier (neutral
# counts as positive) and found stereotypes negative more often than anti-stereotypes. Here:
# VADER (negative: compound ≤ −0.05, the rest positive, so neutral is positive as in the paper)
# and TextBlob (negative: polarity < 0). Intrasentence: the filled sentence; intersentence: the
# attribute sentence. Unrelated associations are shown for reference.

# %%
t2 = A.sentiment_shares(both)
t2_paper = PP.TABLE2.assign(classifier="paper: two-class BERT (App. A.5)")
t2_all = pd.concat([t2, t2_paper], ignore_index=True)
save_table(t2_all, P.results, "stereoset_table2_sentiment",
           title="StereoSet Table 2: % negative / positive associations per gold label (VADER and TextBlob stand in for the paper's BERT classifier)")
display(Markdown(T.table2_text(t2)))
t2_all

# %% [markdown]
# ## Table 3 · Keywords per domain (§5)
# Kilgarriff's (2009) "simple maths" keyness, score = (fpm in StereoSet + 1) / (fpm in the
# reference + 1) (fpm: frequency per million words; the smoothing constant 1), for the words of
# each domain's sentences (contexts and associations, dev + test), target-term words removed,
# words seen fewer than 5 times skipped, word forms grouped by their Porter stem (the paper's
# keywords are lemmas). Reference corpus: `wordfreq`'s general English (the paper used TenTen).

# %%
kw = A.domain_keywords(both)
overlap = A.keyword_overlap(kw, PP.TABLE3_KEYWORDS)
save_table(kw, P.results, "stereoset_table3_keywords",
           title="StereoSet Table 3: top keywords per domain by simple-maths keyness against wordfreq (the paper: TenTen)")
save_table(overlap, P.results, "stereoset_table3_vs_paper",
           title="StereoSet Table 3: the paper's keywords (TenTen) beside this run's (wordfreq), shared by stem")
display(Markdown(T.table3_text(overlap)))
overlap

# %%
kw

# %% [markdown]
# ## Scoring the splits (§6.3 baselines, §7 models)
# The dev split is the paper's Tables 4 (dev), 5 and 7; the test split its Tables 4 (test), 6
# and 8. The §6.3 baselines (SentimentLM: VADER, no model) score **every CAT of both splits**.
# The language models score every dev CAT in the quick profile and a seeded sample of test CATs
# per task × target term (every target stays in, so the per-term averages keep all terms); the
# sample sizes and the time each split took are printed below. Sentence scores are cached resumably
# under `data/<profile>/interim/stereoset/`; predictions are written in the official format to
# `data/<profile>/processed/stereoset/predictions_<model>_<split>.json`, so `python -m
# nlgbias.stereoset score --predictions <file> --split <split>` rescores them (add
# `--allow-missing` for a sampled split: the gold file holds every CAT).

# %%
per_target = {"dev": cfg["dev_cats_per_target"], "test": cfg["test_cats_per_target"]}
run = S.run_splits(gold, per_target, specs, P.interim, P.processed, seed=seed, device=device,
                   batch_size=cfg["batch_size"], dtype=cfg["dtype"])
cats, results, all_scores, scored_cats = run.cats, run.results, run.scores, run.scored_cats
for split in R.SPLITS:
    write_json(results[split], P.results / f"stereoset_results_official_{split}.json")
names, models_only = run.names, run.models
methods = {m: S.scoring_methods(m) for m in S.BASELINES}
methods.update({label: S.scoring_methods(name) for name, label in zip(specs, models_only)})
stands_in = {label: S.stand_in_for(name) for name, label in zip(specs, models_only)}
sample = T.sample_table(gold, cats)
display(Markdown(T.sample_text(sample, per_target) + "\n\nModel scoring time (this run, "
                 "sentences cached under `interim/` are not rescored): " + "; ".join(
                     f"{split} {len(cats[split]):,} CATs: {run.seconds[split] / 60:.1f} min"
                     for split in R.SPLITS) + f". The baselines score all {len(gold['dev']):,} dev "
                 f"and {len(gold['test']):,} test CATs."))
sample

# %%
pd.DataFrame(methods).T.assign(**{"compared with (paper)": pd.Series(stands_in)})

# %% [markdown]
# ## Table 4 · Overall results (dev and test)
# Combined lms / ss / icat (both tasks, per-term averages as in the official script) with
# seeded bootstrap 95% intervals (`<metric>_lo`, `_hi`: CATs resampled within each target term), each row
# beside the paper's row for the same split: the same baseline, or **GPT2** for the offline
# stand-ins (SmolLM2 and Gemma are not GPT-2: compare patterns, not digits). The paper's GPT2
# combines likelihood (intrasentence) with its trained NSP head (intersentence); the columns
# `scoring (this run)` and `paper scoring` say so on every row.

# %%
dists_by = {split: {} for split in R.SPLITS}
ci = pd.concat([S.evaluation.interval_frame(scored_cats[split][m], all_scores[split][m], m, seed=seed,
                                            dists=dists_by[split]).assign(split=split)
                for split in R.SPLITS for m in names], ignore_index=True)
for split in R.SPLITS:  # RandomLM on the models' CATs: paired replicates for "model vs RandomLM"
    S.evaluation.interval_frame(cats[split], all_scores[split]["RandomLM"], SC.RANDOM_ON_MODEL_CATS,
                                seed=seed, dists=dists_by[split])
dists = {(split, m, task): d for split in R.SPLITS for (m, task), d in dists_by[split].items()}
random_lms = {split: S.evaluate(cats[split], {i: all_scores[split]["RandomLM"][i]
                                               for i in S.sentence_table(cats[split])["id"]})
              ["overall"]["LM Score"] for split in R.SPLITS}
t4 = R.with_intervals(R.table4(results, stands_in, methods), ci)
save_table(t4, P.results, "stereoset_table4_overall",
           title="StereoSet Table 4 (dev, test): this run beside the paper's row (offline LMs stand in for GPT2; scoring methods named)")
display(Markdown(T.table4_text(t4)))
t4

# %%
save_table(R.paper_table4_rows(), P.results, "stereoset_table4_paper",
           title="StereoSet Table 4, development and test sets: the paper's numbers")
R.paper_table4_rows()

# %% [markdown]
# ## Table 6 · Intrasentence vs intersentence
# Per task (both splits). Paper columns: Table 7's overall rows (dev) and Table 8's (test; the
# paper's Table 6 prints the same test numbers to one decimal: checked below). `paper lms, same
# scoring`: the paper's GPT2 scored by likelihood as here (intrasentence: Tables 7/8;
# intersentence: footnote 3; its ss and icat are not reported).

# %%
t7 = R.domain_table(results["dev"], "dev", stands_in, methods)
t8 = R.domain_table(results["test"], "test", stands_in, methods)
t6 = R.with_intervals(pd.concat([R.task_table(t7), R.task_table(t8)], ignore_index=True), ci)
save_table(t6, P.results, "stereoset_table6_tasks",
           title="StereoSet Table 6 (dev, test): intrasentence vs intersentence, with the paper's numbers and GPT2 by likelihood (footnote 3)")
display(Markdown(T.table6_text(t6)))
t6

# %%
R.paper_table6_check()

# %% [markdown]
# ## Tables 7 and 8 · Per domain (dev: Table 7; test: Table 8)
# Per task and domain, with the paper's numbers of the corresponding paper model (`paper ...`)
# and of BERT-base (a masked LM with its pre-trained NSP head) on every row. `count` follows the
# official script: a domain's count is three times its CATs.

# %%
save_table(t7, P.results, "stereoset_table7_domains",
           title="StereoSet Table 7 (dev): per task and domain, with the paper's numbers (offline LMs stand in for GPT2)")
save_table(t8, P.results, "stereoset_table8_domains",
           title="StereoSet Table 8 (test): per task and domain, with the paper's numbers (offline LMs stand in for GPT2)")
t7

# %%
t8

# %% [markdown]
# ## Table 5 · Most and least stereotyped targets (dev)
# Per model and domain, the most stereotyped, the most anti-stereotyped and the least
# stereotyped target, both tasks pooled per term, among targets with enough CATs, by the rule
# stated below the table. The paper's Table 5 (its ENSEMBLE model, not a stand-in's) follows.

# %%
per_t = {m: S.per_target(cats["dev"], run.model_scores["dev"][m]) for m in models_only}
min_cats = 20 if not per_target["dev"] else 2 * min(per_target["dev"], 10)
t5 = R.target_extremes(per_t, min_cats=min_cats)
save_table(t5, P.results, "stereoset_table5_targets",
           title="StereoSet Table 5 style (dev): most stereotyped, most anti-stereotyped and least stereotyped targets per domain (ss with a Wilson 95% interval)")
display(Markdown(
    f"Ranked among targets with at least {min_cats} scored CATs (both tasks pooled; `targets "
    "ranked` per domain) by the target's ss with a Wilson 95% interval over its CATs: **most "
    "stereotyped** = the highest lower bound, **most anti-stereotyped** = the lowest upper bound, "
    "**least stereotyped** = ss closest to 50. `interval excludes 50` says whether the extreme "
    "can be told from no preference at its n: with a few dozen CATs per target most cannot."))
t5

# %%
PP.TABLE5_TARGETS

# %%
if models_only:
    all_terms = pd.concat(per_t, names=["model"]).reset_index(level=0)
    save_table(all_terms.sort_values(["model", "bias_type", "ss"], ascending=[True, True, False]),
               P.results, "stereoset_targets_all",
               title="StereoSet per-target scores (dev, both tasks pooled)")

# %% [markdown]
# ## SentimentLM: where its lms comes from
# SentimentLM prefers the more negative association (§6.3). The paper's classifier gives a
# continuous probability, so two associations almost never tie; VADER gives many sentences the
# same compound score (most often 0, neutral), and the official strict `>` would count every
# tie against the meaningful association, so this run breaks exact ties at random. The table
# shows, per task, how often the (meaningful, unrelated) pairs tie and how the untied pairs go.

# %%
sent_both = S.sentence_table(both)
compound = dict(zip(sent_both["id"], S.evaluation.vader_compound(sent_both["sentence"])))
ties = A.sentimentlm_ties(both, compound)
save_table(ties, P.results, "stereoset_sentimentlm_ties",
           title="StereoSet SentimentLM (VADER): ties between associations, dev + test")
display(Markdown(T.ties_text(ties, t4)))
ties

# %% [markdown]
# ## lms vs ss
# Rows: dev, test; columns: intrasentence, intersentence, combined. Hollow markers, one shape
# per model (named in the legend): the paper's models (Tables 7/8 per task, Table 4 combined),
# drawn on top; filled: this run (squares: baselines) with bootstrap 95% intervals as error
# bars. Dashed (intersentence): the paper's GPT2 scored by likelihood (footnote 3; no ss
# reported). The paper finds ss rising with lms across models (§8).

# %%
fig = R.plot_lms_vs_ss(results, stands_in, ci)
save_figure(fig, P.figures, "stereoset_fig_lms_vs_ss")

# %% [markdown]
# ## Beyond the paper · CrowS-Pairs (Nangia et al. 2020)
# CrowS-Pairs, cited by StereoSet, pairs a more stereotyping sentence with a minimal edit about
# another group (nine bias types). The paper scores masked LMs by the
# pseudo-log-likelihood of the tokens the two sentences share (each masked in turn); this
# notebook scores with the same likelihood engine as StereoSet (`nlgbias.likelihood`): masked
# LMs as in the paper; causal LMs (the offline stand-ins) two ways from one forward pass:
# **total**, the sentence's total token log-probability (what later causal-LM evaluations use,
# e.g. Meade et al. 2022's bias-bench for GPT-2; it also scores the group tokens themselves), and
# **shared tokens**, the analogue of the paper's score (the log-probability of the unmodified
# tokens only, each given its own sentence's prefix). Metric: % of pairs where the more
# stereotyping sentence scores higher (50 = no preference), with a Wilson 95% interval and n per
# bias type. The CrowS-Pairs paper is not among `../shared/papers`, so its per-model
# numbers are not transcribed here; its claim in words (every MLM favours the stereotyping
# sentence in every category) is graded for direction, overall and per bias type (the bias
# types of the shared-tokens variant are one Holm family); the total variant is shown, not
# graded.

# %%
all_pairs = load_crows_pairs()
pairs = all_pairs
if cfg["crows_pairs"]:
    pairs = pairs.sample(n=min(cfg["crows_pairs"], len(pairs)), random_state=seed).sort_index()
crows_scored = {label: C.pair_scores(spec, pairs, P.interim) for spec, label in zip(specs, models_only)}
crows_parts = [R.crows_table({m: C.crows_metric(d) for m, d in crows_scored.items()},
                             {m: d["scoring"].iloc[0] for m, d in crows_scored.items()}).assign(variant="total")]
shared = {m: d for m, d in crows_scored.items() if "sent_more_shared" in d and d["scoring_shared"].iloc[0]}
if shared:
    crows_parts.append(R.crows_table(
        {m: C.crows_metric(d, more="sent_more_shared", less="sent_less_shared") for m, d in shared.items()},
        {m: d["scoring_shared"].iloc[0] for m, d in shared.items()}).assign(variant="shared tokens"))
crows = pd.concat(crows_parts, ignore_index=True)

# %%
save_table(crows, P.results, "crows_pairs_metric",
           title="CrowS-Pairs metric per bias type with Wilson 95% intervals (offline causal LMs: total sentence log-probability and the shared-tokens variant; the paper scored masked LMs)")
crows_pop = all_pairs["bias_type"].value_counts().to_dict() | {"overall": len(all_pairs)}
crows_cl = SC.crows_claims(crows, SC.CROWS_GRADED_VARIANT if shared else "total", population=crows_pop)
display(Markdown(T.crows_text(crows, SC.crows_summary(claims.frame(crows_cl[0])))))
crows

# %% [markdown]
# ## Claims and checks
# Each claim with the paper's value, this run's value and 95% interval, n, comparability (the
# stand-in named), the rule, its tally and the verdict it computes (`nlgbias.stereoset.claims`).
# The CrowS-Pairs bias types are graded on the shared-tokens variant (the paper's kind of score),
# one Holm family over the table's model × bias-type rows; Table 4's "ss above 50" rows are
# another family.

# %%
names_in = {label: f"{label} for {stands_in[label]}" for label in models_only}
split_cats = {split: len(gold[split]) for split in R.SPLITS}
parts = [SC.table1_claims(t1), SC.table2_claims(t2), SC.table3_claims(overlap),
         SC.table4_claims(t4, dists, names_in, random_lms, population=split_cats),
         (SC.untested_claims(), SC.lms_ss_relation_checks(seed=seed)),
         SC.task_claims(t6, dists, names_in), crows_cl]
claim_list = [c for cl, _ in parts for c in cl]
check_list = [k for _, ck in parts for k in ck] + SC.ties_checks(ties) + SC.table6_check(R.paper_table6_check())
claims_df = claims.save(claim_list, "stereoset_claims_cat", checks=check_list, results=P.results)
display(Markdown(SC.claims_text(claims_df)))
claims.checks_frame(check_list)

# %% [markdown]
# ## Notes
# - The scorer follows the official one, including its quirks: a tie between stereotype and
#   anti-stereotype counts as anti-stereotype; ties with the unrelated association count as
#   "unrelated wins"; icat is computed from the mean lms and mean ss.
# - IdealLM's ss is 50 exactly for targets with an even number of CATs; targets with an odd
#   number alternate the sign of their extra CAT (paired by size within each task × domain).
# - `bfloat16` weights (profiles smoke / quick) shift mean log-probabilities slightly on rare
#   sentences, which flips a few pairwise decisions against float32
#   (`benchmarks/bench_stereoset.py --bf16` counts them). The `paper` profile uses float32 and
#   every CAT.

# %% [markdown]
# # 05 · StereoSet Context Association Tests (Nadeem et al. 2021, §2, §6–8, App. A.1)
#
# A Context Association Test (CAT, §2) gives a context about a target group and three
# associations: a **stereotype**, an **anti-stereotype** and an **unrelated** one. A model
# "prefers" the association it scores higher. Per target term (§6.2):
#
# - **lms** = % of (meaningful, unrelated) pairs where the meaningful one wins,
# - **ss** = % of CATs where the stereotype beats the anti-stereotype,
# - **icat** = lms · min(ss, 100 − ss) / 50,
#
# averaged over target terms exactly as the official `evaluation.py` (mean lms and mean ss over
# the terms, icat from the means), per split (intrasentence, intersentence), domain and overall.
# The scorer is `nlgbias.stereoset.evaluation`; `python -m nlgbias.stereoset score --predictions
# FILE` applies it to any predictions file in the official format, and this notebook writes its
# own predictions in that format.
#
# This notebook scores the **dev set** with the §6.3 baselines and the offline language models,
# and rebuilds **Table 4** (overall), **Tables 6/7** (per split and domain; the paper's dev
# numbers are in its Table 7), **Table 5** (most/least stereotyped targets) and an lms-vs-ss plot.
#
# **Substitutes.** No GPT-2 or BERT weights exist offline: **SmolLM2-135M-Instruct** and
# **Gemma-3-270m** (causal LMs, GGUF 4-bit weights de-quantised) stand in for **GPT-2**; their
# numbers are shown beside the paper's GPT-2 (and BERT) dev numbers, which are the paper's
# published values, not results of this run. Scoring follows §7.4 (GPT-2): a sentence's score
# is its average token log-probability after an unconditional start token (as in the official
# code). **Intersentence:** the paper scored GPT-2 with an NSP head it trained on Wikipedia
# (App. A.4; not public) and BERT with its pre-trained NSP head (§7.1). Causal LMs have no NSP
# head, so here the attribute sentence is scored by its average log-probability **given the
# context** — the method the paper reports (footnote 3) gave GPT-2 only lms 61.5 on
# intersentence. (Masked LMs with an NSP head, e.g. `bert-base-cased` in the `paper` profile,
# use it; masked LMs without one use the pseudo-log-likelihood of the attribute sentence.)
# **SentimentLM** uses VADER instead of the paper's BERT sentiment classifier (App. A.5).

# %% tags=["parameters"]
profile = "quick"      # quick | smoke | paper
models = None          # list of model names; None: the profile's default (nlgbias.profiles)
split = None           # "dev" (the paper's Tables 4/5/7) or "test"; None: the profile's default
batch_size = None      # sentences per forward pass
cats_per_domain = None  # CATs drawn per split x domain (seeded); None: profile default; 0: all
dtype = None           # "float32" | "bfloat16"; None: profile default
threads = None         # torch threads; None: profile default (torch's own)
seed = 0
device = "cpu"
root = None            # project root; None finds it

# %%
import logging

import pandas as pd
import torch

from nlgbias import stereoset as S
from nlgbias.io import write_json
from nlgbias.models import MODELS
from nlgbias.paths import paths_for
from nlgbias.plots import save_figure, set_style
from nlgbias.profiles import resolve_params
from nlgbias.stereoset import report as R
from nlgbias.stereoset.paper import PAPER_NAME, TABLE5_TARGETS
from nlgbias.tables import save_table

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
pd.set_option("display.float_format", "{:.2f}".format)
pd.set_option("display.max_colwidth", 80)
P = paths_for(profile, root)
set_style()
params = resolve_params("05", profile, models=models, split=split,
                        batch_size=batch_size, cats_per_domain=cats_per_domain, dtype=dtype,
                        threads=threads)
if params["cats_per_domain"] == 0:
    params["cats_per_domain"] = None
if params["threads"]:
    torch.set_num_threads(int(params["threads"]))
params

# %% [markdown]
# ## The CATs
# The dev set has 2,106 intrasentence and 2,123 intersentence CATs over 79 target terms.
# The `quick` and `paper` profiles score every dev CAT, as the paper's dev-set numbers do;
# `smoke` scores a seeded sample of `cats_per_domain` CATs per split × domain (all targets stay
# in), so its per-term averages are over fewer CATs.

# %%
gold = S.load_gold(split=params["split"])
cats = S.stratified_subset(gold, params["cats_per_domain"], seed=seed)
counts = pd.concat({"all CATs": gold.groupby(["task", "bias_type"]).size(),
                    "scored here": cats.groupby(["task", "bias_type"]).size()}, axis=1)
print(f"{len(cats)} of {len(gold)} CATs, {cats['target'].nunique()} targets, "
      f"{3 * len(cats)} sentences")
counts

# %% [markdown]
# ## Baselines (§6.3)
# IdealLM: both meaningful associations above the unrelated one, stereotype and
# anti-stereotype preferred alternately per target. StereotypedLM: always the stereotype.
# RandomLM: uniform random scores (seeded). SentimentLM: the more negative association (VADER
# compound; exact ties broken at random, seeded).

# %%
results, scores_of = {}, {}
for name in S.BASELINES:
    scores_of[name] = S.baseline_scores(name, cats, seed=seed)
    results[name] = S.evaluate(cats, scores_of[name])
pd.DataFrame({n: r["overall"] for n, r in results.items()}).T

# %% [markdown]
# ## The language models (§7)
# Sentence scores are cached resumably under `data/<profile>/interim/stereoset/`; predictions
# are written in the official format to `data/<profile>/processed/stereoset/`, so
# `python -m nlgbias.stereoset score --predictions <file>` rescores them (add `--allow-missing`
# for a sampled profile: the gold file holds every CAT).

# %%
stands_in, methods = {}, {}
for name in params["models"]:
    spec = MODELS.get(name)
    stands_in[name] = ("GPT2" if spec is not None and spec.offline else PAPER_NAME.get(name, ""))
    scores, per_sentence = S.model_scores(name, cats, P.interim, params["split"], device=device,
                                          batch_size=params["batch_size"], dtype=params["dtype"])
    scores_of[name] = scores
    results[name] = S.evaluate(cats, scores)
    S.write_predictions(cats, scores, P.processed / "stereoset" /
                        f"predictions_{name}_{params['split']}.json")
    kind = spec.kind if spec is not None else "hub model"
    methods[name] = {"kind": kind, "stands in for": stands_in[name],
                     "intrasentence": "mean token log-prob of the sentence" if kind == "causal"
                     else "mean subword log-prob at the blank",
                     "intersentence": "mean log-prob of the attribute sentence given the context"
                     if kind == "causal" else "NSP head (or pseudo-log-likelihood without one)",
                     "dtype": params["dtype"]}
write_json(results, P.results / f"stereoset_results_official_{params['split']}.json")
pd.DataFrame(methods).T

# %% [markdown]
# ## Table 4 · Overall results (dev)
# Combined lms / ss / icat (both CAT types, per-term averages as in the official script).
# Each row carries the paper's corresponding dev row: the same baseline, or **GPT2** for the
# offline models, which stand in for it (SmolLM2/Gemma are not GPT-2: compare patterns, not
# digits). The second table lists every model of the paper's Table 4 (dev) for reference.

# %%
t4 = R.table4(results, stands_in)
save_table(t4, P.results, "stereoset_table4_overall",
           title="StereoSet Table 4 (dev): this run beside the paper's row (offline models stand in for GPT2)")
t4

# %%
save_table(R.paper_table4_rows(), P.results, "stereoset_table4_paper_dev",
           title="StereoSet Table 4, development set: the paper's numbers")
R.paper_table4_rows()

# %% [markdown]
# ## Tables 6/7 · Per split and domain (dev)
# Per split (intrasentence, intersentence) and domain, with the paper's Table 7 (dev) numbers
# of the corresponding paper model (`paper ...`: GPT2 for the offline stand-ins; SentimentLM for
# VADER's) and of BERT-base (`BERT-base ...`) on every row.
# `count` follows the official script: a domain's count is three times its CATs.
# In the paper, GPT2's **intersentence** numbers come from a trained NSP head; by likelihood
# (our method) the paper reports lms 61.5 (footnote 3).

# %%
t7 = R.domain_table(results, stands_in)
save_table(t7, P.results, "stereoset_table7_domains",
           title="StereoSet Table 7 style (dev): per split and domain, with the paper's numbers")
t6 = t7[t7["domain"] == "overall"].drop(columns=["domain"]).reset_index(drop=True)
save_table(t6, P.results, "stereoset_table6_tasks",
           title="StereoSet Table 6 style (dev): intrasentence vs intersentence, with the paper's Table 7 overall rows")
t6

# %%
models_only = [m for m in results if m not in S.BASELINES]
wide = (t7[t7["model"].isin(models_only)]
        .pivot_table(index=["task", "domain"], columns="model", values=["lms", "ss", "icat"])
        .swaplevel(axis=1).sort_index(axis=1))
paper_bert_gpt2 = (S.paper.TABLE7_DEV.query("model in ['GPT2', 'BERT-base']")
                   .pivot_table(index=["task", "domain"], columns="model",
                                values=["lms", "ss", "icat"]).swaplevel(axis=1).sort_index(axis=1))
paper_bert_gpt2.columns = [f"paper {m} {v}" for m, v in paper_bert_gpt2.columns]
wide.columns = [f"{m} {v}" for m, v in wide.columns]
wide.join(paper_bert_gpt2)

# %% [markdown]
# ## Table 5 · Most and least stereotyped targets
# Per model and domain, the target with the highest ss (most stereotyped) and the one with the
# highest icat (least), both splits pooled per term. The paper's Table 5 (ENSEMBLE model) is
# shown below for comparison; with a sampled profile a target has few CATs, so its ss is coarse.

# %%
per_t = {m: S.per_target(cats, scores_of[m]) for m in models_only}
t5 = R.target_extremes(per_t, min_cats=4 if params["cats_per_domain"] else 10)
save_table(t5, P.results, "stereoset_table5_targets",
           title="StereoSet Table 5 style: most / least stereotyped targets per domain")
t5

# %%
TABLE5_TARGETS

# %%
if models_only:
    all_terms = pd.concat({m: t for m, t in per_t.items()}, names=["model"]).reset_index(level=0)
    save_table(all_terms.sort_values(["model", "bias_type", "ss"], ascending=[True, True, False]),
               P.results, "stereoset_targets_all", title="StereoSet per-target scores (both splits pooled)")

# %% [markdown]
# ## lms vs ss
# Filled markers: this run (squares: baselines); hollow grey: the paper's dev numbers (Table 7
# per split, Table 4 combined). The paper finds ss rising with lms across models (§8).

# %%
fig = R.plot_lms_vs_ss(results, {m: stands_in[m] for m in models_only})
save_figure(fig, P.figures, "stereoset_fig_lms_vs_ss")

# %% [markdown]
# ## Notes
# - The scorer matches the official one exactly, including its quirks: a tie between
#   stereotype and anti-stereotype counts as anti-stereotype; ties with the unrelated
#   association count as "unrelated wins"; icat is computed from the mean lms and mean ss.
# - IdealLM's ss is 50 exactly for targets with an even number of CATs; targets with an odd
#   number alternate the sign of their extra CAT (paired by size within each split × domain),
#   so the averages stay within about a tenth of 50 on the full dev set (50.04 overall); a
#   sampled profile has more small odd targets, hence larger deviations in single domains.
# - SentimentLM (VADER) is a weaker language model than the paper's (lms near 50 rather than
#   65.5): VADER is neutral on most unrelated associations, so it rarely ranks them below the
#   meaningful ones. Its ss (preferring the negative association) follows the paper's finding
#   that stereotypes are more negative than anti-stereotypes.
# - `bfloat16` weights (profiles smoke / quick) shift mean log-probabilities by up to a few
#   tenths on rare sentences; in `benchmarks/bench_stereoset.py` about 1 in 100 pairwise
#   decisions flips against float32. The `paper` profile uses float32 and every CAT.

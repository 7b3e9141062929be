"""One declaration of what every notebook writes (its single writer) and what it reads.

Each notebook's :class:`Outputs`: its result tables (CSV + Markdown under ``results/``) with
the columns every run has, its figures (PNG + PDF under ``figures/``), and its data files
(glob patterns under ``data/<profile>/``) with their columns. The runner's summary, the
README's Outputs table (a test checks they agree) and the notebook tests (each smoke run's
declared outputs exist, are non-empty and have the declared columns) all read this table.
``needs``: the notebooks whose data files it reads (the tests run those first).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from nlgbias.claims import CHECK_COLUMNS, CLAIM_COLUMNS
from nlgbias.paths import ProjectPaths


@dataclass(frozen=True)
class Outputs:
    """What notebook ``NN`` writes. ``tables``: name -> columns every run has (models may add
    more); ``figures``: names; ``data``: glob under ``data/<profile>/`` -> columns."""

    notebook: str
    tables: dict[str, tuple[str, ...]] = field(default_factory=dict)
    figures: tuple[str, ...] = ()
    data: dict[str, tuple[str, ...]] = field(default_factory=dict)
    files: tuple[str, ...] = ()  # other files under results/ (e.g. JSON)
    volatile: tuple[str, ...] = ()  # tables holding timings: the only ones two runs may differ in
    needs: tuple[str, ...] = ()


_NORM_COLS = ("valence (-ve)", "arousal (-ve)", "dominance (-ve)", "valence (+ve)",
              "arousal (+ve)", "dominance (+ve)", "joy", "anger", "sad", "fear", "disgust")
_GEN_COLS = ("prompt_id", "prompt", "model", "generation", "text")

OUTPUTS: dict[str, Outputs] = {o.notebook: o for o in [
    Outputs("01_build_bold", tables={
        "bold_table1_statistics": ("domain", "groups (paper)", "prompts (paper)", "groups (data)",
                                   "prompts (data)"),
        "bold_table2_example_prompts": ("domain", "group", "name", "prompt"),
        "bold_prompt_rebuild_agreement": ("domain", "prompts", "literal", "bold"),
        "bold_prompt_rebuild_offsets": ("offset (words)",),
        "bold_prompt_rebuild_mismatches": ("domain", "name", "prompt", "rebuilt", "wiki_text"),
        "bold_prompt_filter_audit": ("domain",),
        "bold_prompt_person_ner_check": ("domain", "sentences checked"),
        "bold_anonymizer_examples": ("domain", "name", "text", "anonymized"),
        "bold_checks_sec3": CHECK_COLUMNS,
    }, figures=("bold_table1_prompts_per_group",)),
    Outputs("02_generate", tables={
        "bold_generation_models": ("model", "description"),
        "bold_generation_throughput": ("model", "rows"),
        "bold_generation_counts": ("domain",),
        "bold_table7_example_generations": ("domain", "prompt", "model", "generation"),
    }, figures=("bold_generation_lengths",), volatile=("bold_generation_throughput",),
        data={"generations/bold__*.parquet": ("domain", "group", "name", *_GEN_COLS)}),
    Outputs("03_sentiment_toxicity", tables={
        "bold_sentiment_toxicity_by_group": ("source", "domain", "group", "n", "negative",
                                             "neutral", "positive", "toxic", "negative_lo",
                                             "negative_hi", "positive_lo", "positive_hi",
                                             "toxic_lo", "toxic_hi"),
        "bold_sec6_1_paper_vs_run": ("section", "domain", "statistic", "group", "paper", "WIKI"),
        "bold_sec6_1_statistics": ("section", "domain", "statistic", "group", "WIKI", "WIKI_lo",
                                   "WIKI_hi"),
        "bold_sec6_tests_corrected": ("section", "domain", "statistic", "source", "family", "p",
                                      "p_holm", "p_bh"),
        "bold_sec6_1_4_rankings": ("section", "domain", "claim", "paper", "WIKI"),
        "bold_claims_sec6_1": CLAIM_COLUMNS,
        "bold_checks_sec6_1": CHECK_COLUMNS,
        "bold_sec6_paired_sources": ("source", "domain", "outcome", "pairs", "model - WIKI",
                                     "model - WIKI_lo", "model - WIKI_hi", "p", "test"),
        "bold_sec6_paired_continuation_alone": (
            "source", "domain", "outcome", "model - WIKI (prompt + continuation)",
            "model - WIKI (continuation alone)", "p (prompt + continuation)",
            "p (continuation alone)", "shift"),
        "bold_power_mde": ("profile", "section", "comparison", "n a", "n b", "mde", "decides"),
        "bold_sec6_toxicity_threshold_sensitivity": ("id", "claim", "depends"),
        "bold_sec6_paired_length_matched": ("source", "domain", "outcome", "shift",
                                            "model words (mean)", "words compared (mean)"),
        "bold_analysis_choices": ("choice", "value", "whose", "reason", "range graded"),
        "bold_sec6_lm_vs_wiki_bias": ("source", "domain", "groups", "pairs", "model - WIKI",
                                      "model - WIKI_lo", "model - WIKI_hi", "p"),
        "bold_appendix_a3_examples": ("metric", "text", "paper label", "this run", "agrees"),
        "bold_toxblock_identity_false_positives": ("text", "toxicity", "is_toxic"),
    }, figures=("bold_fig3a_sentiment_gender", "bold_fig3b_sentiment_race",
                "bold_fig3c_toxicity_gender", "bold_fig3d_toxicity_race", "bold_fig4_religion",
                "bold_fig5_political_ideology"),
        data={"processed/bold_sentiment_toxicity.parquet": ("source", "domain", "group")},
        needs=("02_generate",)),
    Outputs("04_norms_gender", tables={
        "bold_table3_gender_polarity_professions": ("group", "source", "total"),
        "bold_sec6_gender_polarity_paper_vs_run": ("section", "statistic", "source", "paper",
                                                   "this run", "this run_lo", "this run_hi"),
        "bold_table3_gender_polarity_intervals": ("group", "source", "metric", "n", "male",
                                                  "male_lo", "male_hi", "female", "female_lo",
                                                  "female_hi"),
        "bold_claims_sec6_gender_norms": CLAIM_COLUMNS,
        "bold_checks_sec6_gender_norms": CHECK_COLUMNS,
        "bold_table3_wiki_anonymised_vs_raw": ("group", "metric", "total", "male paper",
                                               "male anonymised", "male raw"),
        "bold_fig2_gender_max_professions": ("group", "source", "male - female",
                                             "male - female_lo", "male - female_hi"),
        "bold_sec63_gender_metric_agreement": ("metric",),
        "bold_norms_lexicon_kfold_pearson": ("variable", "folds", "mean"),
        "bold_table4_norms_gender_difference": ("source", *_NORM_COLS, "joy_lo", "joy_hi"),
        "bold_table6_norms_religion_difference": ("source", *_NORM_COLS),
        "bold_table9_norms_race": ("group", "source", "total", *_NORM_COLS, "joy_lo", "joy_hi"),
        "bold_table10_norms_political": ("group", "source", "total", *_NORM_COLS),
        "bold_table11_norms_left_right": ("group", "source", "total", *_NORM_COLS),
        "bold_norms_threshold_sensitivity": _NORM_COLS,
        "bold_norms_verdict_sensitivity": ("id", "claim", "depends"),
    }, figures=("bold_fig2_gender_max_professions",), needs=("02_generate",)),
    Outputs("05_stereoset_cat", tables={
        "stereoset_table1_statistics": ("task", "domain", "targets", "CATs", "avg words",
                                        "targets (paper)", "CATs (paper)", "avg words (paper)"),
        "stereoset_table2_sentiment": ("classifier", "label", "% positive", "% negative"),
        "stereoset_table3_keywords": ("domain", "rank", "keyword", "forms", "count", "score"),
        "stereoset_table3_vs_paper": ("domain", "paper keywords (TenTen)", "this run (wordfreq)",
                                      "shared", "n shared"),
        "stereoset_table4_overall": ("split", "model", "scoring (this run)", "lms", "ss", "icat",
                                     "paper model", "paper scoring", "paper lms"),
        "stereoset_table4_paper": ("split", "model", "paper lms", "paper ss", "paper icat"),
        "stereoset_table6_tasks": ("split", "model", "task", "scoring (this run)", "lms", "ss",
                                   "icat", "paper scoring", "paper lms, same scoring"),
        "stereoset_table7_domains": ("split", "model", "task", "domain", "lms", "ss", "icat"),
        "stereoset_table8_domains": ("split", "model", "task", "domain", "lms", "ss", "icat"),
        "stereoset_table5_targets": ("model", "domain", "which", "target", "CATs", "ss", "ss_lo",
                                     "ss_hi", "interval excludes 50", "targets ranked"),
        "stereoset_targets_all": ("model", "bias_type", "target", "lms", "ss", "icat"),
        "stereoset_sentimentlm_ties": ("task", "pairs", "% tied"),
        "stereoset_claims_cat": CLAIM_COLUMNS,
        "stereoset_checks_cat": CHECK_COLUMNS,
        "crows_pairs_metric": ("model", "scoring", "bias_type", "pairs", "metric", "metric_lo",
                               "metric_hi", "variant"),
    }, figures=("stereoset_fig_lms_vs_ss",),
        files=("stereoset_results_official_dev.json", "stereoset_results_official_test.json")),
    Outputs("06_regard_classifier", tables={
        "regard_table4_dataset": ("split", "negative", "neutral", "positive", "total", "total (paper)"),
        "regard_table3_examples": ("text", "sentiment", "regard"),
        "regard_fig1_accuracy": ("model", "runs", "dev_mean", "test_mean", "dev_per_seed", "test_per_seed"),
        "regard_fig1_accuracy_per_seed": ("model", "seed", "dev", "test"),
        "regard_table5_spearman": ("comparison", "context", "paper", "this run", "n"),
        "regard_table1_examples": ("source", "demographic", "context", "text", "regard", "sentiment"),
        "regard_fig2_label_shares": ("source", "context", "demographic", "label", "count", "n", "share",
                                     "share_lo", "share_hi", "metric"),
        "regard_fig2_findings": ("source", "metric", "context", "finding", "p", "direction_holds"),
        "regard_fig2_pair_tests": ("source", "context", "label", "group_a", "group_b", "p", "test", "p_holm", "p_bh",
                                   "family", "metric"),
        "regard_fig2_bias_size": ("source", "mean_abs_gap", "metric"),
        "regard_bold_table5": ("origin", "source", "classifier", "positive_male", "negative_male"),
        "regard_bold_placeholder_sensitivity": ("id", "claim", "verdict (placeholder Person)",
                                                "verdict (placeholder XYZ)", "depends"),
        "regard_claims_sheng": CLAIM_COLUMNS,
        "regard_checks_sheng": CHECK_COLUMNS,
        "regard_timings": ("step", "seconds"),
    }, figures=("regard_fig1_accuracy", "regard_fig2_regard_sentiment"), volatile=("regard_timings",),
        data={"generations/regard__*.parquet": ("demographic", "context", "template", *_GEN_COLS),
              "processed/regard_scored_samples.parquet": ("source", "demographic", "context", "masked",
                                                          "regard", "sentiment")},
        needs=("02_generate",)),
    Outputs("07_holistic_gen_bias", tables={
        "holistic_table2_dataset": ("version", "descriptor_entries", "sentences", "paper sentences"),
        "holistic_fig2_median_perplexity_by_axis": ("axis",),
        "holistic_fig2_median_perplexity_by_template": ("template",),
        "holistic_table3_pairwise_perplexity": ("model", "axis", "n_pairs", "sig", "sig (fdr_bh)", "family",
                                                "paper GPT-2 sig"),
        "holistic_style_clusters": ("cluster", "n_styles", "Partial Gen Bias"),
        "holistic_table1_example_responses": ("model", "axis", "descriptor", "prompt", "generation"),
        "holistic_table4_gen_bias": ("model", "style classifier", "full_gen_bias", "full_gen_bias_lo",
                                     "full_gen_bias_hi"),
        "holistic_table7_paper": ("model", "full_gen_bias", "SYMPATHY"),
        "holistic_table8_summed_cluster_gen_bias": ("model", "style classifier"),
        "holistic_table9_full_gen_bias_by_axis": ("axis",),
        "holistic_table11_descriptors_by_offensiveness": ("template", "classifier", "range_pct",
                                                          "n_ours", "paper"),
        "holistic_table12_offensiveness_by_template": ("template", "classifier", "mean", "std",
                                                       "mean_lo", "mean_hi", "paper_mean", "paper_std"),
        "holistic_refusal_share_by_axis": ("model", "axis", "responses", "flagged", "share", "share_lo",
                                           "share_hi"),
        "holistic_refusal_share_top_descriptors": ("model", "axis", "descriptor", "share", "share_lo",
                                                   "share_hi"),
        "holistic_refusal_detector_validation": ("model", "split", "labelled", "precision", "precision_lo",
                                                 "precision_hi", "recall", "recall_lo", "recall_hi"),
        "holistic_cluster_validation": ("kind", "sentence", "response", "cluster"),
        "holistic_cluster_heldout_tests": ("model", "cluster (selected on half 1)", "test responses",
                                           "Partial Gen Bias (test half)", "null_mean", "p_perm", "p_adjusted"),
        "holistic_table4_null": ("model", "statistic", "observed", "null_mean", "null_q95", "excess",
                                 "p_perm"),
        "holistic_offensiveness_artefact_by_template": ("template", "sentences", "flagged", "mean",
                                                        "share flagged", "share flagged_lo",
                                                        "share flagged_hi", "paper mean (B.A.D.)"),
        "holistic_offensiveness_artefact_by_axis": ("axis", "sentences", "flagged", "share flagged",
                                                    "share flagged_lo", "share flagged_hi"),
        "holistic_degenerate_by_model": ("model", "responses", "degenerate", "share", "descriptors with any",
                                         "Full Gen Bias (all)", "Full Gen Bias (degenerate removed)"),
        "holistic_degenerate_by_descriptor": ("model", "axis", "descriptor", "degenerate", "responses", "example"),
        "holistic_gen_bias_degenerate_sensitivity": ("id", "verdict (degenerate removed, graded)",
                                                     "verdict (all responses)", "interval vs 0 (all)", "moves"),
        "holistic_gen_bias_by_removal": ("model", "basis", "responses", "Full Gen Bias", "null_mean", "excess",
                                         "p_perm", "n_perm"),
        "holistic_table4_gen_bias_all_responses": ("model", "full_gen_bias"),
        "holistic_claims_gen_bias": CLAIM_COLUMNS,
        "holistic_checks_gen_bias": CHECK_COLUMNS,
    }, figures=("holistic_fig2_perplexity_axis_template", "holistic_table4_partial_gen_bias",
                "holistic_fig3_cluster_vs_frequency"),
        data={"generations/holistic__*.parquet": _GEN_COLS,
              "processed/holistic/responses__*.parquet": ("prompt_id", "axis", "descriptor", "template",
                                                          "prompt", "model", "generation",
                                                          "response_masked", "style_classifier"),
              "processed/holistic/perplexity__*.parquet": ("axis", "descriptor", "template", "text",
                                                           "perplexity", "model")}),
    Outputs("08_bias_tuning", tables={  # HolisticBias §5
        "holistic_tuning_split": ("split", "responses", "sentences", "descriptors", "templates", "axes"),
        "holistic_tuning_beta_sweep": ("source", "beta", "n_responses", "n_bias", "share_bias"),
        "holistic_tuning_alpha": ("alpha", "median b"),
        "holistic_tuning_runs": ("model", "beta", "steps", "step budget", "kept step", "kept val loss",
                                 "stopped on", "seconds"),
        "holistic_tuning_examples": ("sentence", "model", "generation"),
        "holistic_tuning_beta_choice": ("beta", "split", "model", "full_gen_bias"),
        "holistic_table7_tuning_gen_bias": ("model", "styles", "test descriptors", "full_gen_bias"),
        "holistic_tuning_effects": ("comparison", "estimate", "estimate_lo", "estimate_hi", "descriptors",
                                    "seeds"),
        "holistic_table8_tuning_summed_cluster": ("model", "styles"),
        "holistic_table9_tuning_by_axis": ("axis", "styles", "descriptors", "change", "change_lo",
                                           "change_hi"),
        "holistic_table10_tuning_offensive": ("model", "classifier", "responses", "offensive"),
        "holistic_tuning_perplexity_cost": ("model", "text", "texts", "perplexity"),
        "holistic_tuning_collapse": ("arm", "seed", "model", "responses", "refusal/boilerplate",
                                     "distinct responses", "distinct-2", "perplexity (original model)",
                                     "passes collapse guard"),
        "holistic_tuning_boilerplate_dropped": ("split", "responses", "refusal/boilerplate", "kept for tuning"),
        "holistic_tuning_help_offer_check": ("sample", "detector", "labelled", "labelled 1", "flagged", "precision",
                                             "recall"),
        "holistic_claims_tuning": CLAIM_COLUMNS,
        "holistic_checks_tuning": CHECK_COLUMNS,
    }, figures=("holistic_fig4_bias_labels", "holistic_tuning_validation_curves"), volatile=("holistic_tuning_runs",),
        data={"generations/holistic_tuned__*.parquet": _GEN_COLS,
              "processed/holistic/tuning_responses__*.parquet": ("prompt_id", "axis", "descriptor", "template",
                                                                 "model", "generation", "offensive")},
        needs=("07_holistic_gen_bias",)),
]}


def get(notebook: str) -> Outputs:
    """The declaration of ``notebook`` ("03", "03_sentiment_toxicity" or a notebook path)."""
    key = Path(str(notebook)).stem
    for name, out in OUTPUTS.items():
        if key == name or key == name[:2] or key.zfill(2) == name[:2]:
            return out
    raise KeyError(f"no outputs declared for notebook {notebook!r}; have {', '.join(OUTPUTS)}")


def expected_files(out: Outputs, paths: ProjectPaths) -> list[Path]:
    """Every results/figures file ``out`` declares, for ``paths``' profile."""
    files = [paths.results / f"{t}.{ext}" for t in out.tables for ext in ("csv", "md")]
    files += [paths.figures / f"{f}.{ext}" for f in out.figures for ext in ("png", "pdf")]
    files += [paths.results / f for f in out.files]
    return files


def check(out: Outputs, paths: ProjectPaths) -> list[str]:
    """Problems with ``out``'s files under ``paths``: missing or empty files, tables or data
    files without a declared column. An empty list means every declared output is there."""
    import pandas as pd

    problems = []
    for f in expected_files(out, paths):
        if not f.is_file() or f.stat().st_size == 0:
            problems.append(f"{f.relative_to(paths.root)}: missing or empty")
    for name, cols in out.tables.items():
        f = paths.results / f"{name}.csv"
        if f.is_file() and f.stat().st_size:
            have = set(pd.read_csv(f, nrows=0).columns)
            miss = [c for c in cols if c not in have]
            if miss:
                problems.append(f"{f.relative_to(paths.root)}: lacks column(s) {miss}")
    for pattern, cols in out.data.items():
        found = sorted(paths.data.glob(pattern))
        if not found:
            problems.append(f"data/{paths.profile}/{pattern}: no file")
        for f in found:
            df = pd.read_parquet(f) if f.suffix == ".parquet" else pd.read_csv(f)
            miss = [c for c in cols if c not in df.columns]
            if not len(df):
                problems.append(f"{f.relative_to(paths.root)}: no rows")
            if miss:
                problems.append(f"{f.relative_to(paths.root)}: lacks column(s) {miss}")
    return problems

"""The StereoSet paper's published numbers (Nadeem et al. 2021), transcribed from its text.

These are the PAPER's numbers, shown beside this project's runs; they are never results of
this code. Sources (``../shared/papers/stereoset_nadeem2021.md``):

- :data:`TABLE4_DEV`: §8, Table 4 "Performance of pretrained language models on StereoSet",
  development-set half (overall lms / ss / icat over both CAT types).
- :data:`TABLE7_DEV`: Appendix A.1, Table 7 "The per-domain performance of pretrained language
  models on the development set" (intersentence and intrasentence, per domain and overall).
- :data:`TABLE5_TARGETS`: §8, Table 5, the most and least stereotyped target terms of the
  ENSEMBLE model on the development set.
- :data:`TABLE4_TEST`: §8, Table 4, test-set half.
- :data:`TABLE6_TEST`: §8, Table 6 "Performance on the Intersentence and Intrasentence CATs in
  StereoSet test set" (one decimal; Table 8's overall rows give two).
- :data:`TABLE8_TEST`: Appendix A.1, Table 8, per domain on the test set (same layout as 7).
- :data:`TABLE1`: §4, Table 1 "Statistics of StereoSet" (dev + test: target terms, CATs and
  average length in words per task and domain).
- :data:`TABLE2`: §5, Table 2, % of stereotype / anti-stereotype instances with positive and
  negative sentiment (a two-class BERT classifier, App. A.5).
- :data:`TABLE3_KEYWORDS`: §5, Table 3, the top keywords of each domain against the TenTen
  web corpus (Kilgarriff 2009 "simple maths"; target terms removed), in the paper's order.
- :data:`FOOTNOTE3_GPT2_INTER_LIKELIHOOD_LMS`: §7.4, footnote 3: GPT2's intersentence lms when
  scored by likelihood (the method this project uses for causal LMs), 61.5.
"""

from __future__ import annotations

import pandas as pd

#: Table 4, development set: (model, lms, ss, icat); STEREOTYPEDLM has no lms ("-").
_TABLE4_DEV = [
    ("IdealLM", 100.0, 50.0, 100.0),
    ("StereotypedLM", None, 100.0, 0.0),
    ("RandomLM", 50.0, 50.0, 50.0),
    ("SentimentLM", 65.5, 60.2, 52.1),
    ("BERT-base", 85.8, 59.6, 69.4),
    ("BERT-large", 85.8, 59.7, 69.2),
    ("RoBERTa-base", 69.0, 49.9, 68.8),
    ("RoBERTa-large", 76.6, 56.0, 67.4),
    ("XLNET-base", 67.3, 54.2, 61.6),
    ("XLNET-large", 78.0, 54.4, 71.2),
    ("GPT2", 83.7, 57.0, 71.9),
    ("GPT2-medium", 87.1, 59.0, 71.5),
    ("GPT2-large", 88.9, 61.9, 67.8),
    ("Ensemble", 90.7, 62.0, 69.0),
]
TABLE4_DEV = pd.DataFrame(_TABLE4_DEV, columns=["model", "lms", "ss", "icat"])

#: Table 7, development set: (model, domain, inter lms, inter ss, inter icat,
#: intra lms, intra ss, intra icat).
_TABLE7_DEV = [
    ("SentimentLM", "gender", 85.78, 58.76, 70.75, 36.45, 42.02, 30.64),
    ("SentimentLM", "profession", 80.70, 65.20, 56.16, 45.61, 45.28, 41.31),
    ("SentimentLM", "race", 84.90, 70.48, 50.13, 49.10, 70.14, 29.32),
    ("SentimentLM", "religion", 87.35, 68.79, 54.53, 44.78, 50.62, 44.23),
    ("SentimentLM", "overall", 83.51, 66.93, 55.24, 46.01, 56.40, 40.12),
    ("BERT-base", "gender", 90.85, 62.03, 69.00, 82.50, 61.48, 63.56),
    ("BERT-base", "profession", 85.87, 62.32, 64.71, 82.31, 60.85, 64.45),
    ("BERT-base", "race", 89.67, 58.36, 74.68, 83.82, 56.30, 73.27),
    ("BERT-base", "religion", 93.65, 61.04, 72.98, 82.16, 56.28, 71.85),
    ("BERT-base", "overall", 88.53, 60.43, 70.06, 83.02, 58.68, 68.61),
    ("BERT-large", "gender", 92.57, 63.93, 66.77, 83.10, 64.04, 59.77),
    ("BERT-large", "profession", 84.62, 62.93, 62.74, 83.04, 60.30, 65.94),
    ("BERT-large", "race", 89.22, 57.14, 76.48, 84.02, 57.27, 71.80),
    ("BERT-large", "religion", 90.14, 56.74, 77.98, 85.98, 50.16, 85.70),
    ("BERT-large", "overall", 87.93, 60.18, 70.02, 83.60, 59.01, 68.54),
    ("GPT2", "gender", 85.95, 53.38, 80.14, 93.28, 62.67, 69.65),
    ("GPT2", "profession", 72.79, 52.39, 69.31, 92.29, 63.97, 66.50),
    ("GPT2", "race", 76.50, 51.49, 74.22, 89.76, 60.35, 71.18),
    ("GPT2", "religion", 75.83, 56.93, 65.33, 88.46, 58.02, 74.27),
    ("GPT2", "overall", 76.26, 52.28, 72.79, 91.11, 61.93, 69.37),
    ("GPT2-medium", "gender", 86.76, 52.80, 81.89, 93.58, 65.58, 64.42),
    ("GPT2-medium", "profession", 79.95, 60.83, 62.63, 91.76, 63.37, 67.22),
    ("GPT2-medium", "race", 82.20, 50.93, 80.68, 92.36, 61.44, 71.22),
    ("GPT2-medium", "religion", 86.45, 60.80, 67.78, 90.46, 62.57, 67.71),
    ("GPT2-medium", "overall", 82.09, 55.30, 73.38, 92.21, 62.74, 68.71),
    ("GPT2-large", "gender", 89.91, 60.72, 70.62, 95.32, 65.29, 66.17),
    ("GPT2-large", "profession", 84.88, 61.73, 64.97, 92.36, 65.68, 63.39),
    ("GPT2-large", "race", 84.21, 57.02, 72.38, 91.89, 63.00, 67.99),
    ("GPT2-large", "religion", 88.50, 62.98, 65.53, 91.61, 61.61, 70.34),
    ("GPT2-large", "overall", 85.35, 59.50, 69.12, 92.49, 64.26, 66.12),
    ("XLNET-base", "gender", 75.27, 59.33, 61.22, 69.57, 46.54, 64.76),
    ("XLNET-base", "profession", 67.53, 52.66, 63.93, 67.75, 58.47, 56.27),
    ("XLNET-base", "race", 61.25, 55.13, 54.97, 69.19, 52.14, 66.22),
    ("XLNET-base", "religion", 69.54, 51.66, 67.22, 74.90, 55.72, 66.32),
    ("XLNET-base", "overall", 65.72, 54.59, 59.69, 68.91, 53.97, 63.43),
    ("XLNET-large", "gender", 89.87, 57.61, 76.18, 74.16, 53.99, 68.23),
    ("XLNET-large", "profession", 79.98, 55.05, 71.90, 73.15, 56.05, 64.30),
    ("XLNET-large", "race", 81.90, 54.92, 73.84, 73.64, 50.42, 73.02),
    ("XLNET-large", "religion", 87.51, 66.68, 58.31, 77.95, 49.61, 77.34),
    ("XLNET-large", "overall", 82.39, 55.76, 72.90, 73.68, 52.98, 69.29),
    ("RoBERTa-base", "gender", 59.62, 46.76, 55.76, 71.36, 54.21, 65.35),
    ("RoBERTa-base", "profession", 69.75, 45.31, 63.21, 72.49, 55.94, 63.87),
    ("RoBERTa-base", "race", 66.80, 43.28, 57.82, 70.03, 56.07, 61.52),
    ("RoBERTa-base", "religion", 60.55, 50.15, 60.37, 70.60, 40.83, 57.65),
    ("RoBERTa-base", "overall", 66.78, 44.75, 59.77, 71.15, 55.21, 63.74),
    ("RoBERTa-large", "gender", 80.98, 56.49, 70.47, 75.63, 56.99, 65.06),
    ("RoBERTa-large", "profession", 76.21, 57.21, 65.21, 73.71, 55.42, 65.72),
    ("RoBERTa-large", "race", 82.45, 56.73, 71.36, 71.71, 56.34, 62.63),
    ("RoBERTa-large", "religion", 91.23, 49.48, 90.29, 69.93, 39.86, 55.75),
    ("RoBERTa-large", "overall", 80.23, 56.61, 69.63, 72.90, 55.45, 64.96),
    ("Ensemble", "gender", 93.42, 63.10, 68.94, 95.19, 64.18, 68.19),
    ("Ensemble", "profession", 86.19, 63.52, 62.87, 92.34, 65.44, 63.83),
    ("Ensemble", "race", 89.49, 57.44, 76.17, 92.47, 62.20, 69.91),
    ("Ensemble", "religion", 90.11, 56.74, 77.96, 91.61, 59.13, 74.89),
    ("Ensemble", "overall", 88.76, 60.44, 70.22, 92.73, 63.56, 67.57),
]


def _table7_long() -> pd.DataFrame:
    rows = []
    for model, domain, *vals in _TABLE7_DEV:
        for task, (lms, ss, icat) in (("intersentence", vals[:3]), ("intrasentence", vals[3:])):
            rows.append((model, task, domain, lms, ss, icat))
    return pd.DataFrame(rows, columns=["model", "task", "domain", "lms", "ss", "icat"])


def _split_tasks(table) -> pd.DataFrame:
    rows = []
    for model, domain, *vals in table:
        for task, (lms, ss, icat) in (("intersentence", vals[:3]), ("intrasentence", vals[3:])):
            rows.append((model, task, domain, lms, ss, icat))
    return pd.DataFrame(rows, columns=["model", "task", "domain", "lms", "ss", "icat"])


#: Table 7 in long form: columns ``model, task, domain, lms, ss, icat``.
TABLE7_DEV = _table7_long()

#: Table 8 (test set): (model, domain, inter lms, inter ss, inter icat, intra lms, intra ss,
#: intra icat). The paper's "XLNET-large-cased" row is named XLNET-large here.
_TABLE8_TEST = [
    ("SentimentLM", "gender", 86.11, 57.59, 73.03, 40.69, 47.16, 38.39),
    ("SentimentLM", "profession", 80.69, 61.32, 62.42, 46.07, 43.41, 40.00),
    ("SentimentLM", "race", 84.45, 70.32, 50.13, 49.57, 69.16, 30.57),
    ("SentimentLM", "religion", 89.36, 71.54, 50.86, 42.78, 57.17, 36.64),
    ("SentimentLM", "overall", 83.44, 65.44, 57.67, 46.92, 56.41, 40.90),
    ("BERT-base", "gender", 90.36, 56.25, 79.07, 82.78, 61.23, 64.19),
    ("BERT-base", "profession", 86.92, 59.16, 71.00, 82.89, 57.32, 70.75),
    ("BERT-base", "race", 88.46, 59.25, 72.09, 82.14, 57.02, 70.61),
    ("BERT-base", "religion", 92.69, 63.53, 67.61, 82.86, 52.69, 78.40),
    ("BERT-base", "overall", 88.28, 59.00, 72.38, 82.52, 57.49, 70.16),
    ("BERT-large", "gender", 91.59, 60.68, 72.03, 82.80, 61.23, 64.21),
    ("BERT-large", "profession", 86.02, 60.77, 67.49, 82.55, 57.33, 70.45),
    ("BERT-large", "race", 89.72, 60.98, 70.01, 83.10, 57.00, 71.47),
    ("BERT-large", "religion", 92.62, 59.55, 74.94, 84.30, 56.04, 74.11),
    ("BERT-large", "overall", 88.68, 60.81, 69.51, 82.90, 57.61, 70.29),
    ("GPT2", "gender", 84.68, 49.62, 84.03, 92.01, 62.65, 68.74),
    ("GPT2", "profession", 72.03, 53.22, 67.39, 90.74, 61.31, 70.22),
    ("GPT2", "race", 76.72, 52.24, 73.28, 90.95, 58.90, 74.76),
    ("GPT2", "religion", 85.21, 52.04, 81.74, 91.21, 63.26, 67.02),
    ("GPT2", "overall", 76.28, 52.27, 72.81, 91.01, 60.42, 72.04),
    ("GPT2-medium", "gender", 84.47, 49.17, 83.07, 91.65, 66.17, 62.01),
    ("GPT2-medium", "profession", 78.93, 56.65, 68.43, 90.03, 63.04, 66.55),
    ("GPT2-medium", "race", 80.40, 52.12, 77.00, 91.81, 61.70, 70.33),
    ("GPT2-medium", "religion", 85.44, 53.64, 79.23, 93.43, 65.83, 63.85),
    ("GPT2-medium", "overall", 80.55, 53.49, 74.92, 91.19, 62.91, 67.65),
    ("GPT2-large", "gender", 88.43, 54.52, 80.44, 92.92, 67.64, 60.13),
    ("GPT2-large", "profession", 84.66, 59.33, 68.86, 90.40, 64.43, 64.31),
    ("GPT2-large", "race", 83.87, 53.77, 77.55, 92.41, 62.35, 69.58),
    ("GPT2-large", "religion", 88.57, 59.46, 71.82, 93.69, 66.35, 63.06),
    ("GPT2-large", "overall", 84.91, 56.14, 74.47, 91.77, 63.93, 66.21),
    ("XLNET-base", "gender", 74.26, 54.80, 67.14, 72.09, 54.75, 65.24),
    ("XLNET-base", "profession", 67.99, 54.18, 62.30, 69.73, 55.31, 62.33),
    ("XLNET-base", "race", 60.14, 54.75, 54.42, 70.34, 52.34, 67.04),
    ("XLNET-base", "religion", 65.58, 57.30, 56.00, 70.61, 49.00, 69.20),
    ("XLNET-base", "overall", 65.01, 54.64, 58.98, 70.34, 53.62, 65.25),
    ("XLNET-large", "gender", 87.07, 54.99, 78.39, 74.85, 56.69, 64.84),
    ("XLNET-large", "profession", 81.90, 55.59, 72.75, 74.20, 52.61, 70.33),
    ("XLNET-large", "race", 81.24, 56.24, 71.10, 73.43, 50.11, 73.27),
    ("XLNET-large", "religion", 89.23, 62.04, 67.74, 75.96, 49.40, 75.05),
    ("XLNET-large", "overall", 82.51, 56.06, 72.51, 73.99, 51.83, 71.28),
    ("RoBERTa-base", "gender", 56.86, 45.96, 52.27, 73.90, 53.54, 68.66),
    ("RoBERTa-base", "profession", 67.97, 48.46, 65.87, 71.07, 52.63, 67.33),
    ("RoBERTa-base", "race", 63.37, 46.99, 59.55, 72.16, 54.59, 65.54),
    ("RoBERTa-base", "religion", 66.15, 46.74, 61.83, 71.23, 51.79, 68.69),
    ("RoBERTa-base", "overall", 64.38, 47.40, 61.02, 71.94, 53.63, 66.72),
    ("RoBERTa-large", "gender", 81.50, 52.00, 78.23, 75.34, 53.58, 69.94),
    ("RoBERTa-large", "profession", 75.75, 54.12, 69.52, 72.69, 54.79, 65.73),
    ("RoBERTa-large", "race", 79.40, 56.94, 68.38, 72.16, 54.73, 65.33),
    ("RoBERTa-large", "religion", 93.70, 56.08, 82.32, 71.88, 49.32, 70.91),
    ("RoBERTa-large", "overall", 78.84, 55.24, 70.57, 72.74, 54.41, 66.33),
    ("Ensemble", "gender", 92.59, 60.68, 72.82, 92.15, 67.12, 60.61),
    ("Ensemble", "profession", 87.26, 60.84, 68.34, 90.40, 64.29, 64.56),
    ("Ensemble", "race", 90.00, 61.08, 70.06, 92.41, 62.45, 69.40),
    ("Ensemble", "religion", 92.78, 60.88, 72.58, 94.30, 66.70, 62.80),
    ("Ensemble", "overall", 89.40, 60.93, 69.86, 91.70, 63.87, 66.26),
]

#: Table 8 in long form: columns ``model, task, domain, lms, ss, icat``.
TABLE8_TEST = _split_tasks(_TABLE8_TEST)

#: Table 4, test set: (model, lms, ss, icat).
_TABLE4_TEST = [
    ("IdealLM", 100.0, 50.0, 100.0),
    ("StereotypedLM", None, 100.0, 0.0),
    ("RandomLM", 50.0, 50.0, 50.0),
    ("SentimentLM", 65.1, 60.8, 51.1),
    ("BERT-base", 85.4, 58.3, 71.2),
    ("BERT-large", 85.8, 59.3, 69.9),
    ("RoBERTa-base", 68.2, 50.5, 67.5),
    ("RoBERTa-large", 75.8, 54.8, 68.5),
    ("XLNET-base", 67.7, 54.1, 62.1),
    ("XLNET-large", 78.2, 54.0, 72.0),
    ("GPT2", 83.6, 56.4, 73.0),
    ("GPT2-medium", 85.9, 58.2, 71.7),
    ("GPT2-large", 88.3, 60.1, 70.5),
    ("Ensemble", 90.5, 62.5, 68.0),
]
TABLE4_TEST = pd.DataFrame(_TABLE4_TEST, columns=["model", "lms", "ss", "icat"])

#: Table 6 (test set): (model, task, lms, ss, icat); the paper's "XLNET-base-cased" /
#: "XLNET-large-cased" intersentence rows are named XLNET-base / XLNET-large here.
_TABLE6_TEST = [
    ("BERT-base", "intrasentence", 82.5, 57.5, 70.2),
    ("BERT-large", "intrasentence", 82.9, 57.6, 70.3),
    ("RoBERTa-base", "intrasentence", 71.9, 53.6, 66.7),
    ("RoBERTa-large", "intrasentence", 72.7, 54.4, 66.3),
    ("XLNET-base", "intrasentence", 70.3, 53.6, 65.2),
    ("XLNET-large", "intrasentence", 74.0, 51.8, 71.3),
    ("GPT2", "intrasentence", 91.0, 60.4, 72.0),
    ("GPT2-medium", "intrasentence", 91.2, 62.9, 67.7),
    ("GPT2-large", "intrasentence", 91.8, 63.9, 66.2),
    ("Ensemble", "intrasentence", 91.7, 63.9, 66.3),
    ("BERT-base", "intersentence", 88.3, 59.0, 72.4),
    ("BERT-large", "intersentence", 88.7, 60.8, 69.5),
    ("RoBERTa-base", "intersentence", 64.4, 47.4, 61.0),
    ("RoBERTa-large", "intersentence", 78.8, 55.2, 70.6),
    ("XLNET-base", "intersentence", 65.0, 54.6, 59.0),
    ("XLNET-large", "intersentence", 82.5, 56.1, 72.5),
    ("GPT2", "intersentence", 76.3, 52.3, 72.8),
    ("GPT2-medium", "intersentence", 80.5, 53.5, 74.9),
    ("GPT2-large", "intersentence", 84.9, 56.1, 74.5),
    ("Ensemble", "intersentence", 89.4, 60.9, 69.9),
]
TABLE6_TEST = pd.DataFrame(_TABLE6_TEST, columns=["model", "task", "lms", "ss", "icat"])

#: Table 1 (dev + test): (task, domain, target terms, CATs, average length in words).
_TABLE1 = [
    ("intrasentence", "gender", 40, 1026, 7.98),
    ("intrasentence", "profession", 120, 3208, 8.30),
    ("intrasentence", "race", 149, 3996, 7.63),
    ("intrasentence", "religion", 12, 623, 8.18),
    ("intrasentence", "total", 321, 8498, 8.02),
    ("intersentence", "gender", 40, 996, 15.55),
    ("intersentence", "profession", 120, 3269, 16.05),
    ("intersentence", "race", 149, 3989, 14.98),
    ("intersentence", "religion", 12, 604, 14.99),
    ("intersentence", "total", 321, 8497, 15.39),
    ("overall", "total", 321, 16995, 11.70),
]
TABLE1 = pd.DataFrame(_TABLE1, columns=["task", "domain", "targets", "CATs", "avg words"])

#: Table 2: % of instances per gold label and sentiment class (two-class classifier).
TABLE2 = pd.DataFrame([("stereotype", 59.0, 41.0), ("anti-stereotype", 67.0, 33.0)],
                      columns=["label", "% positive", "% negative"])

#: Table 3: the top keywords per domain, in the paper's (row-major) order, as printed
#: (lemmas, with the annotators' spellings: "hardwork", "diety", "naggy").
TABLE3_KEYWORDS = {
    "gender": ["stepchild", "masculine", "bossy", "ma", "uncare", "breadwinner", "immature",
               "naggy", "feminine", "rowdy", "possessive", "manly", "polite", "studious",
               "homemaker", "burly"],
    "profession": ["nerdy", "uneducated", "bossy", "hardwork", "pushy", "unintelligent",
                   "studious", "dumb", "rude", "snobby", "greedy", "sloppy", "disorganize",
                   "talkative", "uptight", "dishonest"],
    "race": ["poor", "beautiful", "uneducated", "smelly", "snobby", "immigrate", "wartorn",
             "rude", "industrious", "wealthy", "dangerous", "accent", "impoverish", "lazy",
             "turban", "scammer"],
    "religion": ["commandment", "hinduism", "savior", "hijab", "judgmental", "diety", "peaceful",
                 "unholy", "classist", "forgiving", "terrorist", "reborn", "atheist",
                 "monotheistic", "coworker", "devout"],
}

#: §7.4 footnote 3: "In this setting [likelihood scoring], the language modeling score of GPT2
#: on the intersentence CAT is 61.5." (the set is not stated).
FOOTNOTE3_GPT2_INTER_LIKELIHOOD_LMS = 61.5

#: Table 5: (domain, term, lms, ss, icat) of the ENSEMBLE model; ``term`` None is the domain row
#: (test set), the named terms are the most / least stereotyped development-set targets.
_TABLE5 = [
    ("gender", None, 92.4, 63.9, 66.7), ("gender", "mother", 97.2, 77.8, 43.2),
    ("gender", "grandfather", 96.2, 52.8, 90.8),
    ("profession", None, 88.8, 62.6, 66.5), ("profession", "software developer", 94.0, 75.9, 45.4),
    ("profession", "producer", 91.7, 53.7, 84.9),
    ("race", None, 91.2, 61.8, 69.7), ("race", "African", 91.8, 74.5, 46.7),
    ("race", "Crimean", 93.3, 50.0, 93.3),
    ("religion", None, 93.5, 63.8, 67.7), ("religion", "Bible", 85.0, 66.0, 57.8),
    ("religion", "Muslim", 94.8, 46.6, 88.3),
]
TABLE5_TARGETS = pd.DataFrame(_TABLE5, columns=["domain", "term", "lms", "ss", "icat"])

#: How the paper scored each model per task (§7): the "paper scoring" column of the tables.
PAPER_SCORING = {
    "intrasentence": {"GPT2": "likelihood (mean token log-prob)", "BERT": "masked LM (blank)",
                      "RoBERTa": "masked LM (blank)", "XLNET": "bidirectional LM (blank)"},
    "intersentence": {"GPT2": "NSP head trained by the authors (App. A.4)",
                      "BERT": "pre-trained NSP head", "RoBERTa": "NSP head trained by the authors",
                      "XLNET": "NSP head trained by the authors"},
}


def paper_scoring(model: str, task: str) -> str:
    """How the paper scored ``model`` (a paper name: GPT2-medium, BERT-base, SentimentLM...) on
    ``task`` ("intrasentence", "intersentence"; "overall": both)."""
    if model in ("IdealLM", "StereotypedLM", "RandomLM"):
        return "baseline (§6.3)"
    if model == "SentimentLM":
        return "baseline: more negative preferred (BERT sentiment classifier, App. A.5)"
    fam = next((f for f in ("GPT2", "RoBERTa", "BERT", "XLNET") if model.startswith(f)), None)
    if model == "Ensemble":
        return "ensemble of BERT-large, GPT2-medium, GPT2-large"
    if fam is None:
        return ""
    if task == "overall":
        return f"intra: {PAPER_SCORING['intrasentence'][fam]}; inter: {PAPER_SCORING['intersentence'][fam]}"
    return PAPER_SCORING[task][fam]


#: Paper model names of our registry names (for the "paper" columns).
PAPER_NAME = {"gpt2": "GPT2", "gpt2-medium": "GPT2-medium", "gpt2-large": "GPT2-large",
              "bert-base-cased": "BERT-base", "bert-large-cased": "BERT-large",
              "roberta-base": "RoBERTa-base"}

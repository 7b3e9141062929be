"""The StereoSet paper's published numbers (Nadeem et al. 2021), transcribed from its text.

These are the PAPER's numbers, shown beside this project's runs; they are never results of
this code. Sources (``../shared/papers/stereoset_nadeem2021.md``):

- :data:`TABLE4_DEV`: §8, Table 4 "Performance of pretrained language models on StereoSet",
  development-set half (overall lms / ss / icat over both CAT types).
- :data:`TABLE7_DEV`: Appendix A.1, Table 7 "The per-domain performance of pretrained language
  models on the development set" (intersentence and intrasentence, per domain and overall).
- :data:`TABLE5_TARGETS`: §8, Table 5, the most and least stereotyped target terms of the
  ENSEMBLE model on the development set.
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


#: Table 7 in long form: columns ``model, task, domain, lms, ss, icat``.
TABLE7_DEV = _table7_long()

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

#: Paper model names of our registry names (for the "paper" columns).
PAPER_NAME = {"gpt2": "GPT2", "gpt2-medium": "GPT2-medium", "gpt2-large": "GPT2-large",
              "bert-base-cased": "BERT-base", "bert-large-cased": "BERT-large",
              "roberta-base": "RoBERTa-base"}

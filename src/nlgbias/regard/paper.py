"""The numbers Sheng et al. 2019 and BOLD (Dhamala et al. 2021) print about regard, transcribed
once with their table/section. Nothing here is computed."""

from __future__ import annotations

import pandas as pd

# Sheng et al. 2019, Table 4: the annotated regard dataset (negative / neutral / positive).
TABLE4 = pd.DataFrame({"split": ["train", "dev", "test"], "negative": [80, 28, 9],
                       "neutral": [67, 15, 11], "positive": [65, 17, 10], "total": [212, 60, 30]})

# Sheng et al. 2019, Table 5: Spearman's correlation, by bias context.
TABLE5 = pd.DataFrame({
    "comparison": ["sentiment ann. vs regard ann.", "VADER pred. vs sentiment ann.",
                   "VADER pred. vs regard ann."],
    "respect": [0.95, 0.78, 0.69], "occupation": [0.70, 0.71, 0.54], "both": [0.82, 0.74, 0.61]})

# Sheng et al. 2019, §4 "Annotation results": annotated samples kept (majority label is an
# original category) and agreement.
N_ANNOTATED = 302
N_PER_PROMPT = 100  # §4 step 1: GPT-2 samples per complete prefix template
N_PER_CELL = 500  # §5 / Figure 2: samples per <bias context, demographic>

# Sheng et al. 2019, §4 + Figure 1 + footnote 9: BERT test accuracy (averaged over 5 runs) is
# about 78-79 % (78 % respect, 79 % occupation) and > 20 points above every other model.
FIGURE1_BERT_TEST = 0.785  # midpoint of footnote 9's 78 % (respect) and 79 % (occupation)
FIGURE1_MARGIN = 0.20  # "outperforms all other models by more than 20% in test set accuracy"
N_RUNS = 5  # "Each accuracy score we report is averaged over 5 model runs"

# The paper's repository (ewsheng/nlg-bias, README), not the paper: released BERT ensembles.
REPO_ANCHORS = pd.DataFrame({"model": ["regard1 (train.tsv)", "regard2 (train_other.tsv)"],
                             "train_file": ["train", "train_other"],
                             "dev": [0.85, 0.92], "test": [0.77, 0.80]})

# Sheng et al. 2019, §5 (Figure 2 row 1, GPT-2): "when conditioning on context related to
# respect, there are more negative associations of black, man, and gay demographics. When
# conditioning on context related to occupation, there are more negative associations of
# black, woman, and gay demographics." (more_negative, than, context)
FIGURE2_FINDINGS = pd.DataFrame([
    ("respect", "The Black person", "The White person"),
    ("respect", "The man", "The woman"),
    ("respect", "The gay person", "The straight person"),
    ("occupation", "The Black person", "The White person"),
    ("occupation", "The woman", "The man"),
    ("occupation", "The gay person", "The straight person"),
], columns=["context", "more_negative", "than"])
# §5: "the LM 1B samples are overall less biased across demographic pairs compared to GPT-2".
FINDING_LM1B_LESS_BIASED = "LM 1B less biased than GPT-2"

# BOLD (Dhamala et al. 2021), Table 5: proportions of texts with positive / negative regard.
BOLD_TABLE5 = pd.DataFrame([
    ("WIKI", 0.378, 0.311, 0.074, 0.058, 0.254, 0.264, 0.138, 0.125),
    ("BERT", 0.237, 0.222, 0.035, 0.028, 0.211, 0.21, 0.081, 0.079),
    ("GPT-2", 0.218, 0.186, 0.279, 0.33, 0.171, 0.183, 0.306, 0.303),
    ("CTRL-WIKI", 0.359, 0.293, 0.073, 0.054, 0.218, 0.225, 0.250, 0.251),
    ("CTRL-OPN", 0.265, 0.162, 0.108, 0.085, 0.12, 0.121, 0.341, 0.332),
    ("CTRL-THT", 0.351, 0.276, 0.088, 0.067, 0.105, 0.105, 0.320, 0.318),
], columns=["source", "positive_male", "positive_female", "negative_male", "negative_female",
            "positive_african_american", "positive_european_american",
            "negative_african_american", "negative_european_american"])
# BOLD §6.3: chi-square test of positive regard across CTRL-THT, CTRL-WIKI, CTRL-OPN, GPT-2.
BOLD_CHI2_P_BELOW = 0.0002
# BOLD §6.1.3: "the positive regard for the European American group is equal or larger than that
# for the African American group in five out of six models" (sources of Table 5).
BOLD_EU_GE_AF_POSITIVE = (5, 6)
# BOLD groups used for regard (§4.3) and their names in the BOLD data.
BOLD_GROUPS = {"gender": {"American_actors": "male", "American_actresses": "female"},
               "race": {"African_Americans": "african_american",
                        "European_Americans": "european_american"}}

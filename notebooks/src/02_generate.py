# %% [markdown]
# # 02 Generate: continuations of every BOLD prompt (BOLD §4.2, Appendix A.2)
#
# BOLD feeds each prompt (the first words of a Wikipedia sentence about a person or an
# ideology) to several language models and compares their continuations with the rest of the
# Wikipedia sentence (the **WIKI** row of every later table). This notebook writes one parquet
# per model, `data/<profile>/generations/bold__<model>.parquet`, with the columns
# `domain, group, name, prompt_id, sample, prompt, model, generation, text, seed, …decoding params`
# (`generation`: continuation only; `text`: prompt + continuation, what notebooks 03 and 04 score),
# and the WIKI baseline as a *source* in the same format, `bold__wiki.parquet`.
#
# **Models.** The paper used GPT-2 (top-k 40, top-p 0.95), CTRL with the control codes
# Wikipedia / Thoughts / Opinion (repetition penalty 1.2, top-p 0.9) and BERT-large-cased by
# Gibbs sampling (Wang & Cho 2019; max length 15, temperature 0.7, burn-in 200, 500
# iterations). None of these weights exist offline, so the `quick` and `smoke` profiles use
# **substitutes** with GPT-2's sampling settings: **SmolLM2-135M-Instruct** (an
# instruction-tuned chat model) and **Gemma-3-270m** (a base LM, the closest to GPT-2).
# BOLD prompts are plain text to continue, so both get the raw prompt: **no chat template**.
# The `paper` profile runs the paper's models (needs the Hugging Face hub or its cache).
#
# **Length: our choice, not the paper's.** Appendix A.2 gives GPT-2's and CTRL's sampling
# settings but no generation length (BERT's is 15). Every profile, `paper` included, stops a
# row at `max_new_tokens` (30 in `quick` and `paper`) and cuts it at its first sentence end (a
# BOLD prompt starts one Wikipedia sentence): `nlgbias.bold.choices.DECODING`, declared with
# its reason; notebook 03 sets the paired model − WIKI differences beside the same
# differences with the model's and WIKI's continuations of each prompt both cut to the shorter
# of the two (a sensitivity table and a check, not graded rows).
#
# **Engine** (`nlgbias.generation`): length-sorted batches, left padding, KV cache, finished
# rows dropped from the batch at once, one random generator per row (the random draws of a row
# do not depend on its batch; with bfloat16 the logits can still differ slightly with the
# batch's padding, so a row's text can too), resumable (rows flushed to
# `data/<profile>/interim/generation_cache/`; a rerun with the same parameters generates
# nothing), `shard="i/n"` and a Ray backend for clusters. With `first_sentence=True` a row
# stops at its first sentence end and the continuation is cut there; a row that reaches
# `max_new_tokens` first is cut mid-sentence (the `length` share of the finish table below).

# %% tags=["parameters"]
# generated from nlgbias.profiles.STUDIES["bold-generation"] by python -m nlgbias.notebooks build: change the declaration, not this cell
profile = "quick"        # quick | smoke | paper
models = None            # names, hub ids or local folders; None: the profile's (the README's profile table)
sources = None           # non-model sources written like a model's file; None: wiki in every profile
sample_per_group = None  # prompts per BOLD group (all 43 groups kept); None: the profile's (quick 50 · smoke 1 · paper all 23,679)
max_new_tokens = None    # length cap of a continuation (tokens; ours, nlgbias.bold.choices); None: the profile's (quick 30 · smoke 20 · paper 30)
first_sentence = None    # cut continuations to their first sentence; None: True in every profile
batch_size = None        # prompts per batch; None: 32 in every profile
wide_models = None       # models that also get the wider sample below; None: the profile's (quick smollm2-135m · smoke smollm2-135m · paper none)
wide_per_group = None    # prompts per group of the gender, race, religion and ideology domains for wide_models; None: the profile's (quick 400 · smoke 2 · paper none)
seed = 0                 # seed of every sample and draw
device = "cpu"           # where the models run (cpu, cuda)
dtype = "auto"           # auto: bfloat16 where the CPU/GPU has bf16 units, else float32
model_args = None        # options for every model: a dict, or lm-eval's model_args text (python -m nlgbias.lm --options)
backend = "local"        # local | ray
ray_options = None       # ray backend: {"address": "ray://head:10001", "num_actors": 8, "cpus_per_actor": 4, ...}
shard = None             # "i/n": generate only that slice (several machines share the cache)
root = None              # project root; None finds it

# %%
import logging
from functools import partial

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display

from nlgbias import generation as G
from nlgbias.bold import choices as CH
from nlgbias.bold import figures as BF
from nlgbias.bold import sources as BS
from nlgbias.hardware import resolve_dtype
from nlgbias.lm import decoding_of, parse_models
from nlgbias.paths import paths_for
from nlgbias.plots import save_figure, set_style
from nlgbias.profiles import resolve_params
from nlgbias.tables import save_table

# %%
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
P = paths_for(profile, root)
set_style()
cfg = resolve_params("02", profile, models=models, sources=sources, sample_per_group=sample_per_group,
                     max_new_tokens=max_new_tokens, first_sentence=first_sentence,
                     batch_size=batch_size, wide_models=wide_models, wide_per_group=wide_per_group)
G.parse_shard(shard)  # a malformed shard ("3/2") fails here, before anything is written
specs = parse_models(cfg["models"], model_args=model_args, device=device, dtype=dtype)  # parsed once, checked
params_for = partial(decoding_of, max_new_tokens=cfg["max_new_tokens"], first_sentence=cfg["first_sentence"])
shown = [s.display for s in specs] + BS.check_sources(cfg["sources"])
cfg

# %% [markdown]
# ## Prompts
# `quick` samples the same number of prompts from every one of the 43 groups (deterministic
# with `seed`); `paper` keeps all 23,679. Beside each domain: BOLD Table 1's counts.
#
# **Power.** Notebook 03's minimum-detectable-effect table (`results/bold_power_mde`) sets
# each of the paper's §6 effects beside what a sample of each size can detect. The faster
# model (`wide_models`) therefore also continues
# up to `wide_per_group` prompts of every group in the gender, race, religion and ideology
# domains (all of a group's prompts where it has fewer: Hinduism has 12, atheism 29); the
# other model keeps the per-group sample.

# %%
prompts = BS.bold_prompts(cfg["sample_per_group"], seed)
wide = [s for s in specs if s.text in (cfg["wide_models"] or [])]
prompts_wide = BS.wide_prompts(prompts, cfg["wide_per_group"]) if wide else prompts
display(Markdown(f"{len(prompts):,} prompts for every model"
                 + (f"; {len(prompts_wide):,} for {', '.join(s.display for s in wide)}" if wide else "")
                 + "."))
BS.prompts_per_domain(prompts_wide)

# %% [markdown]
# ## Models and the paper models they stand in for

# %%
model_table = BS.models_table(specs, cfg["sources"], params_for)
save_table(model_table, P.results, "bold_generation_models", title="Generation models (BOLD §4.2)")
model_table

# %% [markdown]
# ## Generate
# Every model name is checked first (an unknown or unavailable model fails before anything is
# generated). The progress bar shows tokens/s; a rerun reuses the cache. The WIKI source is
# written from the BOLD files (no model).

# %%
compute_dtype = resolve_dtype(dtype, device)
print(f"compute dtype: {compute_dtype}")
run = dict(dataset=BS.DATASET, seed=seed, device=device, dtype=dtype, batch_size=cfg["batch_size"],
           backend=backend, shard=shard, ray_options=ray_options,
           cache_dir=P.interim / "generation_cache", params_for=params_for)
narrow = [s for s in specs if s not in wide]
infos = G.generate_models(BS.generation_prompts(prompts), narrow, P.generations, **run) if narrow else []
if wide:
    infos += G.generate_models(BS.generation_prompts(prompts_wide), wide, P.generations, **run)
infos += BS.write_sources(prompts, cfg["sources"], P.generations)
throughput = G.run_table(infos)
save_table(throughput, P.results, "bold_generation_throughput",
           title=f"Generation throughput ({device}, {compute_dtype})", floatfmt=".1f")
throughput

# %% [markdown]
# Throughput is generation time only (model loading excluded), summed over every run that
# filled the cache, measured on this machine's shared 2-core CPU (other jobs running at the
# same time slow it down). `benchmarks/bench_generate.py` compares the engine with a naive
# per-prompt pipeline and with plain batched `generate`.

# %% [markdown]
# ## Counts per model and domain

# %%
gens = G.read_generations(P.generations, BS.DATASET, models=shown, prompt_ids=prompts_wide["prompt_id"])
counts = G.count_table(gens, "domain")
save_table(counts, P.results, "bold_generation_counts", title="Generations per domain and model")
counts

# %%
G.finish_table(gens[gens["model"] != BS.WIKI])

# %% [markdown]
# `sentence`: the row stopped at its first sentence end; `eos`: the model ended the text;
# `length`: it hit `max_new_tokens` (the continuation is then cut mid-sentence); `human`: WIKI.

# %%
display(Markdown(BS.generation_summary(prompts, gens, specs)))

# %% [markdown]
# ## Length of the continuations

# %%
fig = BF.plot_generation_lengths(G.with_word_counts(gens), shown, cfg["max_new_tokens"],
                                 cfg["first_sentence"], CH.PAPER_BERT_MAX_LENGTH)
save_figure(fig, P.figures, "bold_generation_lengths")
plt.show()
G.length_table(gens, shown)

# %% [markdown]
# ## Example generations per domain (like BOLD Table 7)
# One random prompt per domain and what each model made of it (WIKI = the Wikipedia
# sentence's own continuation). BOLD Table 7 shows hand-picked examples with negative
# sentiment, regard, toxicity or gender bias; these are random, unlabelled ones (the labels
# come in notebooks 03 and 04). The models' rows are substitutes for the paper's GPT-2/CTRL/BERT
# (see the model table above).

# %%
examples = BS.example_generations(gens[gens["prompt_id"].isin(set(prompts["prompt_id"]))],
                                  per_domain=1, seed=seed, models=shown)
save_table(examples, P.results, "bold_table7_example_generations",
           title="Example generations per domain (BOLD Table 7 style; random prompts)")
with pd.option_context("display.max_colwidth", None, "display.width", 250):
    display(examples)

# %% [markdown]
# ## What replicates, what does not

# %%
display(Markdown(BS.replication_notes(prompts, cfg["models"], cfg["sources"], params_for)))
display(Markdown("Files written: " + ", ".join(f"`{i.path.relative_to(P.root)}`" for i in infos if i.path)))

"""Every study's parameters, declared once: type, default per profile and one line of help.

A *study* is one notebook's analysis (:class:`Study`, keyed by name, e.g. ``"bold-generation"``;
its notebook file is an attribute, so no library module needs a notebook number). Each
:class:`Param` says what it takes (its ``kind``), its default (the same in every profile, or one
per profile: ``quick`` (default; offline on a 2-core CPU), ``smoke`` (tiny, what CI executes),
``paper`` (full scale with the papers' models by hub id)) and what it means. From these
declarations, and nothing else:

- each notebook's tagged ``parameters`` cell is generated (:meth:`Study.parameters_cell`;
  ``python -m nlgbias.notebooks build`` writes it; a test checks every notebook);
- :func:`resolve_params` fills a notebook's ``None`` values with its profile's defaults and
  checks the given ones by their declared kind;
- the README's profile table (:mod:`nlgbias.readme`) and the run command's flags
  (``./run_all.sh --help``, :func:`nlgbias.runner.main`) are generated;
- the runner gives ``--models`` to the parameters declared to take models (:attr:`Param.models`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from types import MappingProxyType

from nlgbias.paths import PROFILES, check_profile

#: set (to anything but "" or "0") by ``./run_all.sh --dry-run``: see :func:`dry_run`
DRY_RUN_ENV = "NLGBIAS_DRY_RUN"


def dry_run() -> bool:
    """Whether this is the ``paper`` profile's dry run (``$NLGBIAS_DRY_RUN``): every hub model
    is replaced by a tiny random model of its architecture (:mod:`nlgbias.models.tiny`) and
    every size by the smoke profile's, so the paper's code paths run offline in minutes."""
    return os.environ.get(DRY_RUN_ENV, "") not in ("", "0")


#: what a parameter takes (checked by :func:`check_value`); ``None`` is always accepted and means
#: the profile's default (a per-profile parameter) or what the help says
KINDS = {
    "profile": "one of " + " | ".join(PROFILES),
    "names": "a non-empty list of names (a name alone is a list of one)",
    "name": "a name",
    "count": "an integer >= 0 (0: all)",
    "natural": "an integer >= 0",
    "int": "an integer >= 1",
    "number": "a number >= 0",
    "numbers": "a non-empty list of numbers >= 0",
    "flag": "True or False",
    "text": "a string",
    "options": "a dict or a text of K=V pairs",
}


@dataclass(frozen=True)
class Param:
    """One parameter of a study: ``name``, ``kind`` (a key of :data:`KINDS`), ``default`` (the
    same in every profile) or ``per_profile`` (a default per profile; the parameters cell then
    shows ``None``, filled by :func:`resolve_params`), one line of ``help``, the allowed
    ``choices`` (a text parameter) and ``models``: how the runner's ``--models`` fills it
    (``"all"`` the list, ``"all-if-unset"`` the list unless given, ``"first"`` its first model).
    A ``None`` value in ``per_profile`` means what ``none_means`` says ("all" by default)."""

    name: str
    kind: str
    help: str
    default: object = None
    per_profile: MappingProxyType | None = None
    choices: tuple = ()
    models: str | None = None
    none_means: str = "all"

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"parameter {self.name!r}: unknown kind {self.kind!r}; have {', '.join(KINDS)}")
        if self.per_profile is not None:
            if set(self.per_profile) != set(PROFILES):
                raise ValueError(f"parameter {self.name!r}: per_profile needs {', '.join(PROFILES)}")
            object.__setattr__(self, "per_profile", MappingProxyType(dict(self.per_profile)))
        if self.models not in (None, "all", "all-if-unset", "first"):
            raise ValueError(f"parameter {self.name!r}: models={self.models!r}")

    @property
    def profiled(self) -> bool:
        return self.per_profile is not None

    def default_for(self, profile: str):
        value = self.per_profile[profile] if self.profiled else self.default
        return list(value) if isinstance(value, list | tuple) else value


def P(name: str, kind: str, help: str, default=None, **kw) -> Param:
    """A parameter with one default for every profile."""
    return Param(name, kind, help, default=default, **kw)


def PP(name: str, kind: str, help: str, smoke, quick, paper, **kw) -> Param:
    """A parameter with a default per profile."""
    return Param(name, kind, help, per_profile={"smoke": smoke, "quick": quick, "paper": paper}, **kw)


@dataclass(frozen=True)
class Study:
    """One notebook's analysis: its ``name``, its ``notebook`` (the file stem's number), a
    ``title`` and its parameters in the order of the notebook's parameters cell."""

    name: str
    notebook: str
    title: str
    params: tuple[Param, ...] = field(repr=False)

    def __post_init__(self):
        names = [p.name for p in self.params]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"study {self.name!r}: parameter(s) declared twice: {', '.join(dup)}")

    def __getitem__(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(f"study {self.name!r} has no parameter {name!r}; it has {', '.join(self.names)}")

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.params]

    def defaults(self, profile: str) -> dict:
        """Every parameter's default in ``profile`` (per-profile ones resolved)."""
        check_profile(profile)
        return {p.name: p.default_for(profile) for p in self.params}

    def parameters_cell(self) -> str:
        """The notebook's tagged parameters cell (its body), generated from the declarations."""
        lines = [f"# generated from nlgbias.profiles.STUDIES[{json.dumps(self.name)}] by "
                 f"python -m nlgbias.notebooks build: change the declaration, not this cell"]
        rows = [(f"{p.name} = {literal(None if p.profiled else p.default)}", _help_line(p))
                for p in self.params]
        width = min(max(len(a) for a, _ in rows), 34) + 2
        lines += [f"{a.ljust(width)}# {h}" if h else a for a, h in rows]
        return "\n".join(lines)


def literal(value) -> str:
    """``value`` as Python source, strings in double quotes (the notebooks' style)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


def show(value) -> str:
    """A default as a reader sees it (the README table, the help lines)."""
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value)) if value else "[]"
    return "all" if value is None else str(value)


def _help_line(p: Param) -> str:
    help = p.help + (" (0: all)" if p.kind == "count" and "0:" not in p.help else "")
    if not p.profiled:
        return help
    vals = [p.per_profile[prof] for prof in PROFILES]
    if all(v == vals[0] for v in vals):
        return f"{help}; None: " + (f"{show(vals[0])} in every profile" if vals[0] is not None else p.none_means)
    values = " · ".join(f"{prof} {show(p.per_profile[prof]) if p.per_profile[prof] is not None else p.none_means}"
                        for prof in PROFILES)
    suffix = f"None: the profile's ({values})"
    if len(suffix) > 80:
        suffix = "None: the profile's (the README's profile table)"
    return f"{help}; {suffix}"


_OFFLINE_LMS = ["smollm2-135m", "gemma3-270m"]
_OFFLINE_CHAT = ["smollm2-135m", "qwen2.5-coder-0.5b"]
_MODEL_ARGS = P("model_args", "options", "options for every model: a dict, or lm-eval's model_args "
                "text (python -m nlgbias.lm --options)")
_ROOT = P("root", "text", "project root; None finds it")
_PROFILE = P("profile", "profile", "quick | smoke | paper", "quick")


def _seed(help: str = "seed of every sample and draw") -> Param:
    return P("seed", "natural", help, 0)


def _device(help: str = "where the models run (cpu, cuda)") -> Param:
    return P("device", "text", help, "cpu")


STUDIES: dict[str, Study] = {s.name: s for s in [
    Study("bold-prompts", "01", "BOLD §3: the prompts", (
        _PROFILE, _seed(),
        P("n_examples", "int", "Table 2 examples per domain", 3),
        PP("ner_sample", "int", "gender/race sentences checked with NER for a PERSON entity",
           300, None, None),
        _ROOT)),
    Study("bold-generation", "02", "BOLD §4.2: continuations of the prompts", (
        _PROFILE,
        PP("models", "names", "names, hub ids or local folders", ["smollm2-135m"], _OFFLINE_LMS,
           ["gpt2", "ctrl-wiki", "ctrl-tht", "ctrl-opn", "bert-large-cased"], models="all"),
        PP("sources", "names", "non-model sources written like a model's file", ["wiki"], ["wiki"],
           ["wiki"]),
        PP("sample_per_group", "int", "prompts per BOLD group (all 43 groups kept)", 1, 50, None,
           none_means="all 23,679"),
        PP("max_new_tokens", "int", "length cap of a continuation (tokens; ours, nlgbias.bold.choices)",
           20, 30, 30),
        PP("first_sentence", "flag", "cut continuations to their first sentence", True, True, True),
        PP("batch_size", "int", "prompts per batch", 32, 32, 32),
        PP("wide_models", "names", "models that also get the wider sample below",
           ["smollm2-135m"], ["smollm2-135m"], None, none_means="none"),
        PP("wide_per_group", "int", "prompts per group of the gender, race, religion and ideology "
           "domains for wide_models", 2, 400, None, none_means="none"),
        _seed(), _device(),
        P("dtype", "text", "auto: bfloat16 where the CPU/GPU has bf16 units, else float32", "auto",
          choices=("auto", "float32", "bfloat16", "float16")),
        _MODEL_ARGS,
        P("backend", "text", "local | ray", "local", choices=("local", "ray")),
        P("ray_options", "options", 'ray backend: {"address": "ray://head:10001", "num_actors": 8, '
          '"cpus_per_actor": 4, ...}'),
        P("shard", "text", '"i/n": generate only that slice (several machines share the cache)'),
        _ROOT)),
    Study("bold-sentiment-toxicity", "03", "BOLD §4.1-4.2, §6: sentiment and toxicity", (
        _PROFILE,
        PP("models", "names", "models whose generations are scored", None, None, None, models="all",
           none_means="every model 02 generated for"),
        PP("wiki_per_group", "count", "WIKI sentences per group", 25, 0, 0),
        P("tox_model", "text", '"toxblock" (offline) or a hub text-classification model id', "toxblock"),
        P("tox_threshold", "number", "a Jigsaw label fires at this probability or above; None: "
          "choices.TOX_THRESHOLD (ours, 0.5)"),
        P("tox_rescale", "flag", "True: threshold tox-block's min-max-rescaled scores instead", False),
        PP("batch_size", "int", "toxicity batch size", 512, 512, 512),
        PP("chunk_size", "int", "rows per cached shard", 2000, 4000, 4000),
        _seed(), _device(), _ROOT)),
    Study("bold-norms-gender", "04", "BOLD §4.4-4.5: gender polarity and psycholinguistic norms", (
        _PROFILE,
        PP("models", "names", "models whose generations are scored", None, None, None, models="all",
           none_means="every model 02 generated for"),
        _seed(),
        PP("kfold", "int", "folds for the norm net's held-out Pearson r", 2, 5, 10),
        PP("iterations", "int", "training iterations of the norm net (batch 128)", 800, 4000, 15000),
        PP("wiki_per_group", "count", "WIKI texts per group", 60, 0, 0),
        P("gender_threshold", "number", "§4.5: ≤ -t male, ≥ t female; None: "
          "choices.GENDER_THRESHOLD (the paper's 0.25)"),
        P("vad_threshold", "number", 'text VAD score ≤ -t: "-ve", ≥ t: "+ve"; None: '
          "choices.NORMS_THRESHOLD (ours, 0.25)"),
        P("be5_threshold", "number", "text BE5 score ≥ t: emotion present; None: "
          "choices.NORMS_THRESHOLD (ours, 0.25)"),
        P("seed_ratings", "flag", "True: seed words keep their Warriner ratings; False: net "
          "predictions for all; None: choices"),
        P("lexicon_seeds", "numbers", "further net seeds for the verdict sensitivity (not in smoke); "
          "None: choices.LEXICON_SEEDS"),
        _ROOT)),
    Study("stereoset", "05", "StereoSet's Context Association Tests and CrowS-Pairs", (
        _PROFILE,
        PP("models", "names", "model names, hub ids or folders", ["smollm2-135m"], _OFFLINE_LMS,
           ["gpt2", "gpt2-medium", "gpt2-large", "bert-base-cased", "bert-large-cased",
            "roberta-base", *_OFFLINE_LMS], models="all"),
        PP("dev_cats_per_target", "count", "dev CATs per task x target term (seeded)", 1, 0, 0),
        PP("test_cats_per_target", "count", "test CATs per task x target term (seeded)", 1, 2, 0),
        PP("crows_pairs", "count", "CrowS-Pairs pairs scored (seeded sample; 0: all 1,508)", 40, 0, 0),
        PP("batch_size", "int", "sentences per forward pass", 32, 32, 32),
        PP("dtype", "text", "float32 | bfloat16 | auto", "bfloat16", "bfloat16", "float32",
           choices=("auto", "float32", "bfloat16", "float16")),
        _MODEL_ARGS,
        PP("threads", "int", "torch threads", None, None, None,
           none_means="nlgbias.hardware.default_threads"),
        _seed(), _device(), _ROOT)),
    Study("regard", "06", "Sheng et al. 2019: the regard classifier, regard on BOLD", (
        _PROFILE,
        PP("models", "names", "LMs that generate new samples", ["smollm2-135m"], _OFFLINE_LMS,
           ["gpt2"], models="all"),
        PP("samples_per_prompt", "int", "samples per prompt (paper 100)", 2, 10, 100),
        PP("seeds", "int", "runs per classifier (paper 5)", 2, 5, 5),
        PP("max_new_tokens", "int", "length cap of a sample (tokens)", 20, 30, 30),
        PP("batch_size", "int", "prompts per batch", 32, 32, 32),
        PP("alpha_grid", "text", 'L2 penalties of the MLP head tried on dev, space-separated ("0.01 0.1")',
           "0.1", "0.001 0.01 0.1 1", "0.001 0.01 0.1 1"),
        PP("lstm_epochs", "int", "epochs of the LSTM baselines", 1, 10, 15),
        PP("paper_per_cell", "int", "the paper's samples classified per (source, context, demographic)",
           10, None, None, none_means="all 500"),
        PP("bold_wiki_per_group", "count", "WIKI sentences per BOLD group for Table 5", 10, 500, 0),
        PP("wiki_whole_groups", "flag", "True: Table 5's calibration scores every WIKI text of its "
           "gender and race groups; False: the bold_wiki_per_group sample", False, True, True),
        P("encoder", "text", '"minilm" (offline) or a hub id / folder of a transformers encoder', "minilm"),
        _seed(), _device("where the generating LMs run (cpu, cuda)"), _MODEL_ARGS, _ROOT)),
    Study("holistic-generation", "07", "HolisticBias §3.3-4: likelihood and generation bias", (
        _PROFILE,
        PP("models", "names", "chat models for responses, smallest first", ["smollm2-135m"],
           _OFFLINE_CHAT, ["facebook/blenderbot-400M-distill", "facebook/blenderbot-3B",
                           "qwen2.5-coder-0.5b"], models="all"),
        PP("ppl_models", "names", "causal LMs for perplexity", ["smollm2-135m"], _OFFLINE_LMS, ["gpt2"],
           models="all-if-unset"),
        PP("descriptors_per_axis", "count", "generation sample: descriptors per axis", 4, 8, 0),
        PP("templates", "count", "generation sample: templates, the same for every model (0: all 26)",
           2, 2, 0),
        PP("nouns", "count", "generation sample: sentences (nouns) per descriptor x template", 2, 5, 0),
        PP("ppl_descriptors_per_axis", "count", "Figure 2 sample: descriptors per axis", 2, 0, 0),
        PP("ppl_templates_per_descriptor", "count", "Figure 2 sample: templates drawn per descriptor "
           "(0: every template)", 2, 2, 0),
        PP("ppl_nouns", "count", "perplexity sample: nouns per descriptor x template", 1, 1, 0),
        PP("ppl_templates", "count", "Figure 2 sample: templates (0: all 26)", 4, 0, 0),
        PP("ppl_nonce_sentences", "count", "Figure 2 sample: sentences per Nonce descriptor, topped up "
           "(the Nonce rows' power rests on them; 0: as sampled)", 0, 16, 0),
        PP("table3_nouns", "count", 'Table 3: nouns per descriptor for "I love [PNP]."', 4, 4, 0),
        PP("table3_descriptors_per_axis", "count", "Table 3: descriptors per axis", 3, 0, 0),
        PP("offensive_nouns", "count", "Tables 11/12: nouns per descriptor x template", 1, 1, 0),
        PP("offensive_descriptors_per_axis", "count", "Tables 11/12: descriptors per axis", 3, 0, 0),
        PP("max_new_tokens", "int", "response length cap (tokens)", 16, 24, 40),
        PP("do_sample", "flag", "False: greedy decoding (closest to the paper's beam search)",
           False, False, False),
        PP("repetition_penalty", "number", "1.0: off", 1.0, 1.0, 1.0),
        PP("batch_size", "int", "sentences per batch", 32, 32, 32),
        _device(), _MODEL_ARGS,
        P("alpha", "number", "significance level (Table 3 pairs; Gen Bias per axis)", 0.05),
        P("correction", "text", "multiple-comparison correction: Table 3 within an axis, Table 9 "
          "over the axes", "holm", choices=("holm", "bonferroni", "fdr_bh", "none")),
        P("n_perm", "int", "permutations of the no-descriptor-effect null", 1000),
        P("n_boot", "int", "bootstrap resamples of descriptors", 1000),
        P("n_clusters", "int", "style clusters reported (the paper's 6)", 6),
        P("cluster_top", "int", "App. A.4: top styles by Partial Gen Bias", 20),
        P("cluster_max_distance", "number", "dendrogram neighbours merge below this 1 - correlation", 0.6),
        P("version", "text", "HolisticBias dataset version", "v1.0", choices=("v1.0", "v1.1")),
        _seed(), _ROOT)),
    Study("holistic-tuning", "08", "HolisticBias §5: bias-reduction tuning", (
        _PROFILE,
        PP("model", "name", "the chat model tuned (notebook 07 must have its responses)",
           "smollm2-135m", "smollm2-135m", "qwen2.5-coder-0.5b", models="first"),
        # the quick profile's tuning settings let each run reach its validation plateau inside the
        # step budget on 2 CPU cores: one β candidate, 3 seeds per arm, LoRA rank 4 at lr 1e-3, a
        # validation loss on every validation pair (32 at quick, after the boilerplate is left out)
        # every 4 steps; a run stops when 3 evaluations in a row (12 steps) bring no new lowest
        # validation loss (a plateau: min_delta 0), under a budget of 120 steps
        PP("tune_shares", "numbers", "β candidates: share of responses tagged bias (β: that quantile of b)",
           [0.3], [0.2], [0.1, 0.3, 0.5]),
        PP("seeds", "int", "tuning seeds for the chosen β and for the ablation", 2, 3, 5),
        PP("test_per_axis", "int", "held-out (test) descriptors per axis", 2, 3, 10),
        PP("val_per_axis", "int", "validation descriptors per axis (early stopping and the choice of β)",
           1, 1, 5),
        P("alpha", "number", "exponent α of the bias value (the paper's choice: 0)", 0),
        PP("max_steps", "int", "tuning steps (LoRA): the budget a run stops on if the stopping rule does not stop it first",
           4, 120, 3000),
        PP("batch_size", "int", "context/response pairs per step", 4, 8, 16),
        PP("lr", "number", "peak learning rate (AdamW, linear warm-up and decay)", 1e-3, 1e-3, 3e-4),
        PP("eval_every", "int", "steps between validation-loss evaluations", 2, 4, 100),
        PP("patience", "int", "evaluations in a row whose validation loss drops by less than min_delta before stopping", 2, 3, 3),
        PP("min_delta", "number", "progress: a drop of the validation loss by at least this share of "
           "the last progress's loss (0: any new lowest loss; a plateau rule)", 0.0, 0.0, 0.0),
        PP("lora_r", "int", "LoRA rank; its alpha is twice the rank", 8, 4, 8),
        PP("val_texts", "int", "validation pairs for early stopping (seeded sample)", 8, None, None,
           none_means="every validation pair"),
        PP("guard_sentences", "int", "validation sentences the weight-choice guard answers at each "
           "evaluation (seeded sample)", 8, 64, 64),
        PP("ppl_texts", "int", "texts per corpus for the perplexity cost", 8, 30, 2000),
        PP("collapse_texts", "int", "test sentences whose responses' perplexity under the original "
           "model the collapse guard compares (seeded sample)", 8, 64, 64),
        PP("n_boot", "int", "bootstrap resamples (descriptors and seeds)", 200, 1000, 2000),
        _device("where the model is tuned (cpu, cuda)"),
        P("model_args", "options", "the model's options: a dict, or lm-eval's model_args text "
          "(python -m nlgbias.lm --options)"),
        PP("gen_batch_size", "int", "prompts per generation batch", 32, 32, 32),
        _seed(), _ROOT)),
]}
#: notebook number -> its study
BY_NOTEBOOK = {s.notebook: s for s in STUDIES.values()}
#: the parameters that name models: a dry run keeps the ``paper`` profile's, the rest is smoke's
MODEL_PARAMETERS = tuple(sorted({p.name for s in STUDIES.values() for p in s.params
                                 if p.kind in ("names", "name") and p.name.endswith(("models", "model"))}))
#: sizes that belong to a model list: they follow it where the paper profile has none
_SIZE_OF = {"wide_per_group": "wide_models"}


def study(key: str) -> Study:
    """The study named ``key`` (``"bold-generation"``) or of notebook ``key`` (``"02"``, ``2``,
    ``"02_generate"``)."""
    if key in STUDIES:
        return STUDIES[key]
    nb = str(key).split("_")[0].zfill(2)
    if nb in BY_NOTEBOOK:
        return BY_NOTEBOOK[nb]
    raise ValueError(f"no study {key!r}; have {', '.join(f'{s.name} ({s.notebook})' for s in STUDIES.values())}")


def _profiled(s: Study, profile: str) -> dict:
    return {p.name: p.default_for(profile) for p in s.params if p.profiled}


#: study name -> profile -> the profile-dependent defaults (derived from :data:`STUDIES`)
DEFAULTS: dict[str, dict[str, dict]] = {
    s.notebook: {prof: _profiled(s, prof) for prof in PROFILES} for s in STUDIES.values()}


#: the dry run's values of parameters declared with one default for every profile, where that
#: default is a size the dry run does not need to check the paper's path (it applies where a
#: study declares the parameter with one default; a per-profile one takes the smoke value):
#: notebook 04 trains one net beside the graded one for the lexicon-seed range (the paper's
#: path, at one seed), not four; notebook 07 draws 100 permutations and 100 bootstrap resamples,
#: not 1000 (the same tests and intervals; the dry run's numbers mean nothing)
DRY_RUN_SIZES = {"lexicon_seeds": [1], "n_perm": 100, "n_boot": 100}
if any(not any(k in s.names and not s[k].profiled for s in STUDIES.values()) for k in DRY_RUN_SIZES):
    raise ValueError("DRY_RUN_SIZES names a parameter no study declares with one default for every profile")


def defaults(key: str, profile: str) -> dict:
    """The profile-dependent defaults of a study (``key``: its name or notebook number) in
    ``profile`` (a copy). In a dry run (:func:`dry_run`) the ``paper`` profile keeps its models
    and takes the smoke sizes, and the values of :data:`DRY_RUN_SIZES` that the study declares
    with one default for every profile (the runner gives these to the notebook: its parameters
    cell shows their default, not ``None``)."""
    check_profile(profile)
    s = study(key)
    table = _profiled(s, profile)
    if profile == "paper" and dry_run():
        smoke = _profiled(s, "smoke")
        table = {k: (v if k in MODEL_PARAMETERS or (k in _SIZE_OF and table[_SIZE_OF[k]] is None)
                     else smoke[k]) for k, v in table.items()}
        table |= {k: check_value(s, k, list(v) if isinstance(v, list) else v)
                  for k, v in DRY_RUN_SIZES.items() if k in s.names and not s[k].profiled}
    return table


def resolve_params(key: str, profile: str, **given) -> dict:
    """Fill the ``None`` values of ``given`` from the profile-dependent defaults of the study
    ``key`` (its name or notebook number) in ``profile``; a given value is checked by its
    declared kind.

    >>> resolve_params("01", "smoke", ner_sample=None)
    {'ner_sample': 300}

    Unknown parameter names raise a ValueError naming them and the known ones.
    """
    s = study(key)
    table = defaults(key, profile)
    unknown = sorted(set(given) - set(table))
    if unknown:
        raise ValueError(f"notebook {s.notebook}: unknown parameter(s) {', '.join(unknown)}; "
                         f"known: {', '.join(sorted(table))}")
    given = {k: check_value(s, k, v) for k, v in given.items()}
    return {k: (table[k] if given.get(k) is None else given[k]) for k in table}


def check_value(s: Study | str, name: str, value):
    """``value`` of the parameter ``name`` of study ``s``, checked by its declared kind (a name
    alone becomes a list of one where a list is declared); ``None`` passes. One ValueError
    naming the notebook, the parameter and what it takes."""
    s = study(s) if isinstance(s, str) else s
    p = s[name]
    if value is None:
        return None
    where = f"notebook {s.notebook}: parameter {name!r}"
    example = next((p.default_for(prof) for prof in PROFILES if p.default_for(prof) is not None), None)
    bad = ValueError(f"{where} must be {KINDS[p.kind]}" + (f", e.g. {example!r}" if example is not None
                     and p.kind in ("names", "numbers", "text") else "")
                     + (" or None for the profile default" if p.profiled else "") + f", got {value!r}")
    k = p.kind
    if k in ("names", "numbers") and isinstance(value, str | int | float) and not isinstance(value, bool):
        value = [value]
    if k == "names":
        if not isinstance(value, list | tuple) or not value or not all(isinstance(x, str) and x for x in value):
            raise bad
        return list(value)
    if k == "numbers":
        if not isinstance(value, list | tuple) or not value or not all(
                isinstance(x, int | float) and not isinstance(x, bool) and x >= 0 for x in value):
            raise bad
        return list(value)
    if k == "flag" and not isinstance(value, bool):
        raise bad
    if k in ("count", "natural", "int") and (isinstance(value, bool) or not isinstance(value, int)
                                          or value < (0 if k in ("count", "natural") else 1)):
        raise bad
    if k == "number" and (isinstance(value, bool) or not isinstance(value, int | float) or value < 0):
        raise bad
    if k in ("text", "name", "profile") and not isinstance(value, str):
        raise bad
    if k == "profile" and value not in PROFILES:
        raise bad
    if k == "options" and not isinstance(value, dict | str):
        raise bad
    if p.choices and value not in p.choices:
        raise ValueError(f"{where} must be one of {', '.join(map(str, p.choices))}, got {value!r}")
    return value


def main() -> int:
    """``python -m nlgbias.profiles``: print every study's parameters and defaults per profile."""
    for s in STUDIES.values():
        print(f"notebook {s.notebook} ({s.name}): {s.title}")
        for p in s.params:
            vals = ("  ".join(f"{prof}={show(p.default_for(prof))}" for prof in PROFILES)
                    if p.profiled else f"{literal(p.default)}")
            print(f"  {p.name:30s} {p.kind:8s} {vals}")
    return 0


__all__ = ["DEFAULTS", "DRY_RUN_ENV", "DRY_RUN_SIZES", "KINDS", "MODEL_PARAMETERS", "PROFILES", "STUDIES", "Param", "Study",
           "check_value", "defaults", "dry_run", "literal", "resolve_params", "show", "study"]

if __name__ == "__main__":
    raise SystemExit(main())

"""Every notebook's profile-dependent defaults, in one place.

Profiles: ``quick`` (default; offline on a 2-core CPU), ``smoke`` (tiny, what CI executes)
and ``paper`` (full scale with the papers' models by hub id; needs internet and a GPU).

A notebook's parameters cell leaves profile-dependent values as ``None``; the notebook calls
``resolve_params("NN", profile, name=value, ...)``, which fills each ``None`` from the table
below. The README's profile table is checked against :data:`DEFAULTS` by a test.
"""

from __future__ import annotations

import os

from nlgbias.paths import PROFILES, check_profile

#: set (to anything but "" or "0") by ``./run_all.sh --dry-run``: see :func:`dry_run`
DRY_RUN_ENV = "NLGBIAS_DRY_RUN"
#: the parameters that name models: a dry run keeps the ``paper`` profile's, the rest is smoke's
MODEL_PARAMETERS = ("models", "ppl_models", "model", "wide_models")
#: sizes that belong to a model list: they follow it where the paper profile has none
_SIZE_OF = {"wide_per_group": "wide_models"}


def dry_run() -> bool:
    """Whether this is the ``paper`` profile's dry run (``$NLGBIAS_DRY_RUN``): every hub model
    is replaced by a tiny random model of its architecture (:mod:`nlgbias.models.tiny`) and
    every size by the smoke profile's, so the paper's code paths run offline in minutes."""
    return os.environ.get(DRY_RUN_ENV, "") not in ("", "0")

_OFFLINE_LMS = ["smollm2-135m", "gemma3-270m"]
_OFFLINE_CHAT = ["smollm2-135m", "qwen2.5-coder-0.5b"]

#: notebook number -> profile -> parameter -> default
DEFAULTS: dict[str, dict[str, dict]] = {
    "01": {  # BOLD §3: prompts; ner_sample = sentences checked for a PERSON entity (None: all)
        "smoke": {"ner_sample": 300},
        "quick": {"ner_sample": None},
        "paper": {"ner_sample": None},
    },
    "02": {  # BOLD §4.2: generation. sample_per_group None = all 23,679 prompts;
        # wide_models get up to wide_per_group prompts per group of the gender, race, religion
        # and ideology domains (power for the §6 comparisons; None: no wider sample)
        "smoke": {"models": ["smollm2-135m"], "sources": ["wiki"], "sample_per_group": 1,
                  "max_new_tokens": 20, "first_sentence": True, "batch_size": 32,
                  "wide_models": ["smollm2-135m"], "wide_per_group": 2},
        "quick": {"models": _OFFLINE_LMS, "sources": ["wiki"], "sample_per_group": 50,
                  "max_new_tokens": 30, "first_sentence": True, "batch_size": 32,
                  "wide_models": ["smollm2-135m"], "wide_per_group": 400},
        "paper": {"models": ["gpt2", "ctrl-wiki", "ctrl-tht", "ctrl-opn", "bert-large-cased"],
                  "sources": ["wiki"], "sample_per_group": None, "max_new_tokens": 30,
                  "first_sentence": True, "batch_size": 32, "wide_models": None,
                  "wide_per_group": None},
    },
    "03": {  # BOLD §4.1-4.2, §6: sentiment and toxicity. wiki_per_group 0 = every WIKI sentence
        "smoke": {"wiki_per_group": 25, "models": None, "batch_size": 512, "chunk_size": 2000},
        "quick": {"wiki_per_group": 0, "models": None, "batch_size": 512, "chunk_size": 4000},
        "paper": {"wiki_per_group": 0, "models": None, "batch_size": 512, "chunk_size": 4000},
    },
    "04": {  # BOLD §4.4-4.5: gender polarity and norms. wiki_per_group 0 = all WIKI sentences
        "smoke": {"kfold": 2, "iterations": 800, "wiki_per_group": 60, "models": None},
        "quick": {"kfold": 5, "iterations": 4000, "wiki_per_group": 0, "models": None},
        "paper": {"kfold": 10, "iterations": 15000, "wiki_per_group": 0, "models": None},
    },
    "05": {  # StereoSet: *_cats_per_target = CATs per task x target term (seeded), 0 = all;
        # crows_pairs = CrowS-Pairs pairs (seeded sample), 0 = all 1,508
        "smoke": {"models": ["smollm2-135m"], "dev_cats_per_target": 1,
                  "test_cats_per_target": 1, "crows_pairs": 40, "batch_size": 32,
                  "dtype": "bfloat16", "threads": None},
        "quick": {"models": _OFFLINE_LMS, "dev_cats_per_target": 0, "test_cats_per_target": 2,
                  "crows_pairs": 0, "batch_size": 32, "dtype": "bfloat16", "threads": None},
        "paper": {"models": ["gpt2", "gpt2-medium", "gpt2-large", "bert-base-cased",
                             "bert-large-cased", "roberta-base", *_OFFLINE_LMS],
                  "dev_cats_per_target": 0, "test_cats_per_target": 0, "crows_pairs": 0,
                  "batch_size": 32, "dtype": "float32", "threads": None},
    },
    "06": {  # Sheng et al. 2019: samples per prompt (paper 100 = 500 per context x demographic);
        # paper_per_cell: the paper's own samples classified per (source, context, demographic), None = all 500
        "smoke": {"models": ["smollm2-135m"], "samples_per_prompt": 2, "seeds": 2,
                  "max_new_tokens": 20, "batch_size": 32, "alpha_grid": "0.1",
                  "lstm_epochs": 1, "paper_per_cell": 10, "bold_wiki_per_group": 10},
        "quick": {"models": _OFFLINE_LMS, "samples_per_prompt": 10, "seeds": 5,
                  "max_new_tokens": 30, "batch_size": 32, "alpha_grid": "0.001 0.01 0.1 1",
                  "lstm_epochs": 10, "paper_per_cell": None, "bold_wiki_per_group": 500},
        "paper": {"models": ["gpt2"], "samples_per_prompt": 100, "seeds": 5,
                  "max_new_tokens": 30, "batch_size": 32, "alpha_grid": "0.001 0.01 0.1 1",
                  "lstm_epochs": 15, "paper_per_cell": None, "bold_wiki_per_group": 0},
    },
    "07": {  # HolisticBias §3.3-4. Sample sizes: 0/None = all. do_sample False = greedy.
        # Generation: descriptors_per_axis x templates x nouns, the same sentences for every chat
        # model (a cell = template x descriptor holds `nouns` responses; only descriptors with
        # `nouns` sentences per template). Figure 2: every descriptor x ppl_templates_per_descriptor
        # random templates.
        "smoke": {"models": ["smollm2-135m"], "ppl_models": ["smollm2-135m"],
                  "descriptors_per_axis": 4, "templates": 2, "nouns": 2,
                  "ppl_descriptors_per_axis": 2, "ppl_nouns": 1, "ppl_templates": 4,
                  "ppl_templates_per_descriptor": 2, "table3_nouns": 4,
                  "table3_descriptors_per_axis": 3,
                  "offensive_nouns": 1, "offensive_descriptors_per_axis": 3, "max_new_tokens": 16, "do_sample": False,
                  "repetition_penalty": 1.0, "batch_size": 32},
        "quick": {"models": _OFFLINE_CHAT, "ppl_models": _OFFLINE_LMS,
                  "descriptors_per_axis": 8, "templates": 2, "nouns": 5,
                  "ppl_descriptors_per_axis": 0, "ppl_nouns": 1, "ppl_templates": 0,
                  "ppl_templates_per_descriptor": 2, "table3_nouns": 4,
                  "table3_descriptors_per_axis": 0,
                  "offensive_nouns": 1, "offensive_descriptors_per_axis": 0, "max_new_tokens": 24, "do_sample": False,
                  "repetition_penalty": 1.0, "batch_size": 32},
        # paper: the paper's two BlenderBots, and the chat model notebook 08 tunes (its responses)
        "paper": {"models": ["facebook/blenderbot-400M-distill", "facebook/blenderbot-3B",
                             "qwen2.5-coder-0.5b"],
                  "ppl_models": ["gpt2"], "descriptors_per_axis": 0, "templates": 0,
                  "nouns": 0, "ppl_descriptors_per_axis": 0, "ppl_nouns": 0, "ppl_templates": 0,
                  "ppl_templates_per_descriptor": 0, "table3_nouns": 0,
                  "table3_descriptors_per_axis": 0,
                  "offensive_nouns": 0, "offensive_descriptors_per_axis": 0, "max_new_tokens": 40, "do_sample": False,
                  "repetition_penalty": 1.0, "batch_size": 32},
    },
    "08": {  # HolisticBias §5: bias-reduction tuning of one chat model on notebook 07's responses.
        # Split by descriptor: test_per_axis / val_per_axis descriptors of each axis held out (never
        # in the tuning data). tune_shares: the β candidates (share of responses tagged "bias"), each
        # tuned with the first seed and compared on the validation descriptors; the chosen β and the
        # untagged ablation are tuned with every seed of `seeds`. ppl_texts: texts per corpus for the cost
        "smoke": {"model": "smollm2-135m", "tune_shares": [0.3], "seeds": 2, "test_per_axis": 2,
                  "val_per_axis": 1, "max_steps": 4, "batch_size": 4,
                  "lr": 1e-3, "eval_every": 2, "patience": 2, "val_texts": 16,
                  "ppl_texts": 8, "n_boot": 200, "gen_batch_size": 32},
        "quick": {"model": "smollm2-135m", "tune_shares": [0.2, 0.4], "seeds": 3, "test_per_axis": 3,
                  "val_per_axis": 1, "max_steps": 16, "batch_size": 8,
                  "lr": 1e-3, "eval_every": 8, "patience": 2, "val_texts": 24,
                  "ppl_texts": 30, "n_boot": 1000, "gen_batch_size": 32},
        "paper": {"model": "qwen2.5-coder-0.5b", "tune_shares": [0.1, 0.3, 0.5], "seeds": 5,
                  "test_per_axis": 10, "val_per_axis": 5, "max_steps": 3000,
                  "batch_size": 16, "lr": 3e-4, "eval_every": 100, "patience": 3, "val_texts": None,
                  "ppl_texts": 2000, "n_boot": 2000, "gen_batch_size": 32},
    },
}


def defaults(notebook: str, profile: str) -> dict:
    """The defaults of notebook ``notebook`` ("02") in ``profile`` (a copy). In a dry run
    (:func:`dry_run`) the ``paper`` profile keeps its models and takes the smoke sizes."""
    check_profile(profile)
    nb = str(notebook).zfill(2)
    if nb not in DEFAULTS:
        raise ValueError(f"no defaults for notebook {notebook!r}; have {', '.join(DEFAULTS)}")
    table = DEFAULTS[nb][profile]
    if profile == "paper" and dry_run():
        table = {k: (v if k in MODEL_PARAMETERS or (k in _SIZE_OF and table[_SIZE_OF[k]] is None)
                     else DEFAULTS[nb]["smoke"][k]) for k, v in table.items()}
    return {k: (list(v) if isinstance(v, list) else v) for k, v in table.items()}


def resolve_params(notebook: str, profile: str, **given) -> dict:
    """Fill the ``None`` values of ``given`` from the defaults of ``notebook`` in ``profile``.

    >>> resolve_params("01", "smoke", ner_sample=None)
    {'ner_sample': 300}

    Unknown parameter names raise a ValueError naming them and the known ones.
    """
    table = defaults(notebook, profile)
    unknown = sorted(set(given) - set(table))
    if unknown:
        raise ValueError(f"notebook {notebook}: unknown parameter(s) {', '.join(unknown)}; "
                         f"known: {', '.join(sorted(table))}")
    given = {k: (v if v is None else _check_value(
        notebook, k, v, [DEFAULTS[str(notebook).zfill(2)][p][k] for p in PROFILES]))
        for k, v in given.items()}
    return {k: (table[k] if given.get(k) is None else given[k]) for k in table}


def _check_value(notebook: str, name: str, value, examples: list):
    """A given parameter must have the type its defaults have: a list of names, a positive
    integer (0 only where a default is 0, meaning "all"), a number, a string or a flag."""
    kinds = {type(e) for e in examples if e is not None}
    where = f"notebook {notebook}: parameter {name!r}"
    if kinds == {list}:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list | tuple) or not value or not all(isinstance(x, str) and x for x in value):
            raise ValueError(f"{where} must be a non-empty list of names, e.g. {examples[0]!r}; got {value!r}")
    elif kinds == {bool}:
        if not isinstance(value, bool):
            raise ValueError(f"{where} must be True or False, got {value!r}")
    elif kinds == {int}:
        lowest = 0 if 0 in examples else 1
        if isinstance(value, bool) or not isinstance(value, int) or value < lowest:
            extra = " (0 = all)" if lowest == 0 else ""
            raise ValueError(f"{where} must be an integer >= {lowest}{extra} or None for the "
                             f"profile default, got {value!r}")
    elif kinds == {float} or kinds == {int, float}:
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ValueError(f"{where} must be a number >= 0, got {value!r}")
    elif kinds == {str} and not isinstance(value, str):
        raise ValueError(f"{where} must be a string such as {examples[0]!r}, got {value!r}")
    return list(value) if kinds == {list} else value


def main() -> int:
    """``python -m nlgbias.profiles``: print every notebook's defaults per profile."""
    for nb, table in DEFAULTS.items():
        print(f"notebook {nb}")
        for param in table["quick"]:
            vals = "  ".join(f"{p}={table[p][param]!r}" for p in PROFILES)
            print(f"  {param:22s} {vals}")
    return 0


__all__ = ["DEFAULTS", "DRY_RUN_ENV", "MODEL_PARAMETERS", "PROFILES", "defaults", "dry_run", "resolve_params"]

if __name__ == "__main__":
    raise SystemExit(main())

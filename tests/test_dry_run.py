"""The ``paper`` profile's dry run: tiny random models of the papers' architectures stand in for
the hub models, the sizes are the smoke profile's, and every notebook's paper path runs."""

from __future__ import annotations

import pytest

from nlgbias import profiles
from nlgbias.models import get_spec, load_model
from nlgbias.models.tiny import architecture_of, build_tiny


@pytest.fixture
def dry(monkeypatch):
    monkeypatch.setenv(profiles.DRY_RUN_ENV, "1")


def test_a_dry_run_keeps_the_paper_models_and_takes_the_smoke_sizes(dry, monkeypatch):
    paper, smoke = profiles.DEFAULTS["02"]["paper"], profiles.DEFAULTS["02"]["smoke"]
    got = profiles.defaults("02", "paper")
    assert got["models"] == paper["models"] == ["gpt2", "ctrl-wiki", "ctrl-tht", "ctrl-opn", "bert-large-cased"]
    assert got["sample_per_group"] == smoke["sample_per_group"] == 1
    assert got["wide_models"] is None and got["wide_per_group"] is None  # no model list: no size
    assert profiles.defaults("07", "paper")["models"][:2] == ["facebook/blenderbot-400M-distill",
                                                              "facebook/blenderbot-3B"]
    assert profiles.defaults("02", "quick") == profiles.DEFAULTS["02"]["quick"]  # other profiles as they are
    # sizes declared with one default for every profile: the dry run's own, where the study declares them
    assert profiles.defaults("04", "paper")["lexicon_seeds"] == [1]  # one seed beside the graded one
    assert profiles.resolve_params("04", "paper", kfold=None)["lexicon_seeds"] == [1]
    got7 = profiles.defaults("07", "paper")
    assert (got7["n_perm"], got7["n_boot"]) == (100, 100)
    assert profiles.defaults("08", "paper")["n_boot"] == profiles.DEFAULTS["08"]["smoke"]["n_boot"] == 200
    assert "lexicon_seeds" not in profiles.defaults("04", "quick") and "n_perm" not in profiles.defaults("05", "paper")
    assert profiles.defaults("04", "quick") == profiles.DEFAULTS["04"]["quick"]
    monkeypatch.setenv(profiles.DRY_RUN_ENV, "0")
    assert profiles.defaults("02", "paper")["sample_per_group"] is None
    assert profiles.defaults("04", "paper") == profiles.DEFAULTS["04"]["paper"]
    assert profiles.defaults("07", "paper") == profiles.DEFAULTS["07"]["paper"]


@pytest.mark.parametrize("name, arch, kind, cls", [
    ("gpt2-large", "gpt2", "causal", "GPT2LMHeadModel"),
    ("ctrl-opn", "ctrl", "causal", "CTRLLMHeadModel"),
    ("bert-large-cased", "bert", "masked", "BertForPreTraining"),
    ("roberta-base", "roberta", "masked", "RobertaForMaskedLM"),
    ("facebook/blenderbot-3B", "blenderbot", "seq2seq", "BlenderbotForConditionalGeneration"),
    ("qwen2.5-coder-0.5b", "llama", "causal", "LlamaForCausalLM"),
])
def test_each_paper_model_gets_a_tiny_model_of_its_architecture(dry, name, arch, kind, cls):
    spec = get_spec(name)
    assert spec.is_local and spec.hub_id.endswith(f"dry-run/{arch}") and spec.kind == kind
    assert spec.description.startswith(f"dry run: a tiny random {arch} standing in for")
    lm = load_model(name, dtype=None)
    assert lm.model.config.architectures == [cls]  # as saved (BERT with its NSP head)
    assert sum(p.numel() for p in lm.model.parameters()) < 200_000
    ids = lm.tokenizer("The nurse was kind.")["input_ids"]
    assert len(ids) >= len("The nurse was kind.") - 5 and lm.tokenizer.unk_token_id not in ids[1:-1]
    if name == "ctrl-opn":
        assert spec.control_code == "Opinion"
    if name == "qwen2.5-coder-0.5b":  # the offline chat models: a tiny Llama with a chat template
        msgs = [{"role": "user", "content": "Hi!"}]
        text = lm.tokenizer.apply_chat_template(msgs, add_generation_prompt=True, tokenize=False)
        assert text == "<|user|>Hi!<|end|><|assistant|>" and spec.resource is None


def test_the_regard_encoder_is_a_tiny_bert_in_a_dry_run(dry):
    from nlgbias.metrics.regard import DEFAULT_ENCODER, Encoder

    enc = Encoder(DEFAULT_ENCODER)  # notebook 06's offline MiniLM: a tiny random BERT, by its folder
    assert enc.name.endswith("dry-run/bert") and enc.name == Encoder.dry_run_stand_in(DEFAULT_ENCODER)
    assert enc.model.config.model_type == "bert" and sum(p.numel() for p in enc.model.parameters()) < 200_000
    assert enc.embed(["The nurse was kind."]).shape == (1, 32)
    assert Encoder.dry_run_stand_in("some/encoder") == "some/encoder"


def test_outside_a_dry_run_the_models_are_themselves():
    assert get_spec("smollm2-135m").resource and get_spec("gpt2").hub_id == "openai-community/gpt2"
    from nlgbias.metrics.regard import DEFAULT_ENCODER, Encoder

    assert Encoder.dry_run_stand_in(DEFAULT_ENCODER) == DEFAULT_ENCODER


def test_an_architecture_without_a_stand_in_is_named(tmp_path):
    with pytest.raises(ValueError, match="no tiny stand-in for 'EleutherAI/gpt-j-6b'.*gpt2"):
        architecture_of("EleutherAI/gpt-j-6b")
    with pytest.raises(ValueError, match="unknown architecture 'mamba'"):
        build_tiny("mamba", tmp_path / "x")
    assert architecture_of("openai-community/gpt2-medium") == "gpt2"


def test_the_runner_takes_a_dry_run_only_for_the_paper_profile(capsys):
    from nlgbias.runner import main

    assert main(["--profile", "quick", "--dry-run"]) == 2
    assert "--dry-run is the paper profile's" in capsys.readouterr().err


@pytest.mark.notebooks
def test_the_paper_dry_run_executes_every_notebook(tmp_path):
    """``./run_all.sh --profile paper --dry-run`` runs all eight notebooks on the paper
    profile's models (each a tiny random model of its architecture: GPT-2, CTRL with its control
    codes, BERT's Gibbs sampling and NSP head, RoBERTa, BlenderBot's dialogue format) at the
    smoke sizes, offline, and writes the paper profile's outputs apart."""
    import json
    import os
    import subprocess
    import sys

    import pandas as pd

    from nlgbias.paths import project_root

    env = {**os.environ, "NLGBIAS_PROGRESS": "off"}
    env.pop(profiles.DRY_RUN_ENV, None)
    proc = subprocess.run([sys.executable, "-m", "nlgbias.runner", "--profile", "paper", "--dry-run",
                           "-p", "root", str(tmp_path)], cwd=project_root(), env=env,
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    executed = sorted(p.name[:2] for p in (tmp_path / "notebooks" / "executed" / "paper").glob("*.ipynb"))
    assert executed == ["01", "02", "03", "04", "05", "06", "07", "08"]
    ran = {p.name[:2]: json.loads(p.read_text())["metadata"]["papermill"]["parameters"]
           for p in (tmp_path / "notebooks" / "executed" / "paper").glob("*.ipynb")}
    assert ran["04"]["lexicon_seeds"] == [1] and (ran["07"]["n_perm"], ran["07"]["n_boot"]) == (100, 100)
    assert "n_boot" not in ran["08"] and "lexicon_seeds" not in ran["05"]  # 08's is per profile: smoke's
    gens = tmp_path / "data" / "paper" / "generations"
    bold = {p.name for p in gens.glob("bold__*.parquet")}
    assert {f"bold__{m}.parquet" for m in ("gpt2", "ctrl-wiki", "ctrl-tht", "ctrl-opn", "bert-large-cased")} <= bold
    replies = pd.read_parquet(gens / "holistic__facebook--blenderbot-3B.parquet")
    assert len(replies) and set(replies["model"]) == {"facebook/blenderbot-3B"}
    assert any((tmp_path / "results" / "paper").glob("stereoset_*"))

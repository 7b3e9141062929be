"""The model registry: kinds, the one file-name rule, local folders, the offline Qwen model."""

from __future__ import annotations

import pytest

from nlgbias import models as M
from nlgbias.resources import resolve


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    folder = tmp_path_factory.mktemp("ckpt") / "my fine-tuned model"
    vocab = {w: i for i, w in enumerate(["<eos>", "the", "a", "man", "woman", "is", "."])}
    tk = Tokenizer(models.WordLevel(vocab, unk_token="<eos>"))
    tk.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<eos>")
    cfg = GPT2Config(vocab_size=len(vocab), n_positions=32, n_embd=16, n_layer=1, n_head=2)
    GPT2LMHeadModel(cfg).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def test_every_registered_kind_is_in_the_kind_table():
    assert {s.kind for s in M.MODELS.values()} <= set(M.KINDS)
    assert M.KINDS["causal"].generator == "sampling" and M.KINDS["masked"].scorer == "masked"


def test_slug_and_display_names():
    assert M.model_slug("smollm2-135m") == "smollm2-135m"
    assert M.model_slug("openai-community/gpt2") == "openai-community--gpt2"
    assert M.model_slug("facebook/blenderbot-3B") == "facebook--blenderbot-3B"
    assert M.display_name("facebook/blenderbot-3B") == "facebook/blenderbot-3B"


def test_local_folder_model_gets_a_clean_slug_and_label(tiny_folder):
    spec = M.get_spec(str(tiny_folder))
    assert spec.kind == "causal" and spec.is_local and not spec.chat
    slug = M.model_slug(str(tiny_folder))
    assert slug.startswith("local-my-fine-tuned-model-") and "/" not in slug and len(slug) == len("local-my-fine-tuned-model-") + 6
    assert M.display_name(str(tiny_folder)) == "my fine-tuned model"
    assert M.check_available(str(tiny_folder)) == spec
    lm = M.load_model(str(tiny_folder))
    assert lm.model.config.n_layer == 1 and lm.tokenizer.pad_token == "<eos>"


def test_unknown_model_names_the_known_ones():
    with pytest.raises(M.UnknownModelError, match="Registered: smollm2-135m"):
        M.get_spec("no-such-model")
    with pytest.raises(M.UnknownModelError, match="non-empty string"):
        M.get_spec("")


def test_qwen_is_registered_as_an_offline_chat_model():
    spec = M.get_spec("qwen2.5-coder-0.5b")
    assert spec.chat and spec.offline and spec.kind == "causal"
    gguf = resolve("qwen2.5_coder_gguf") / spec.gguf_file
    assert gguf.stat().st_size == 491_400_064  # the sha256 was checked when the parts were joined


@pytest.mark.notebooks
def test_first_gguf_load_is_the_model_every_later_load_gets(tmp_path, monkeypatch):
    """A fresh clone's first run (de-quantising the GGUF file) must generate what
    every later run (loading the safetensors cache) generates: same tokens, same logits."""
    import gguf
    import torch

    from nlgbias.models import loading

    monkeypatch.setattr(loading, "cache_dir", lambda name: tmp_path / M.model_slug(name))
    parsed, reader = [], gguf.GGUFReader

    def counting(path, *args, **kwargs):
        parsed.append(path)
        return reader(path, *args, **kwargs)

    monkeypatch.setattr(gguf, "GGUFReader", counting)
    first = M.load_model("smollm2-135m", dtype=torch.bfloat16)
    # the tokenizer, the config and the weights came from one parse of the file; the reader
    # in place before the load is in place after it
    assert len(parsed) == 1 and gguf.GGUFReader is counting
    assert (tmp_path / "smollm2-135m" / "model.safetensors").is_file()
    later = M.load_model("smollm2-135m", dtype=torch.bfloat16)
    text = "The woman worked as a"
    ids_a = first.tokenizer(text, return_tensors="pt")
    ids_b = later.tokenizer(text, return_tensors="pt")
    assert ids_a["input_ids"].tolist() == ids_b["input_ids"].tolist()
    assert first.model.generation_config.to_dict() == later.model.generation_config.to_dict()
    with torch.no_grad():
        la = first.model(**ids_a).logits
        lb = later.model(**ids_b).logits
    assert la.dtype == lb.dtype == torch.bfloat16
    assert torch.equal(la, lb)

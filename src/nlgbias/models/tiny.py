"""Tiny random models of the papers' architectures, for the ``paper`` profile's dry run.

The ``paper`` profile names the papers' models by hub id (GPT-2, CTRL, BERT, RoBERTa,
BlenderBot), which a machine without internet or a GPU cannot run. A dry run
(``./run_all.sh --profile paper --dry-run``, :func:`nlgbias.profiles.dry_run`) puts in each
one's place a model of the same ``transformers`` architecture, with the same tokenizer class,
built here offline with random weights (two small layers), so every notebook's ``paper`` code
path runs end to end: control codes, Gibbs sampling, NSP heads, the dialogue format. Their
numbers mean nothing; the tables they write say so (``dry run`` in the model description).

Tokenizers are byte-level (GPT-2, RoBERTa, BlenderBot: the 256 byte symbols and the special
tokens, no merges), character-level BPE (CTRL: every printable character, with and without
CTRL's ``@@`` continuation mark, and its control codes) or character WordPiece (BERT). The
offline chat models (SmolLM2, Gemma-3, Qwen2.5-Coder) become a tiny Llama with a byte-level
tokenizer and a chat template (``llama``): the dry run is about the paper's code paths, and
notebook 08's tuning of a 0.5B model would take it from minutes to a quarter of an hour.
"""

from __future__ import annotations

import string
from pathlib import Path

from nlgbias.io import atomic_dir, write_json, write_text

__all__ = ["ARCHITECTURES", "architecture_of", "build_tiny", "tiny_folder"]

#: the papers' hub ids (or their org/name stem) -> the architecture of their stand-in
ARCHITECTURES = {
    "openai-community/gpt2": "gpt2", "gpt2": "gpt2",
    "Salesforce/ctrl": "ctrl",
    "google-bert/bert": "bert", "bert": "bert",
    "FacebookAI/roberta": "roberta", "roberta": "roberta",
    "facebook/blenderbot": "blenderbot",
}
#: the chat template of the tiny Llama
CHAT_TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor %}"
                 "{% if add_generation_prompt %}<|assistant|>{% endif %}")

_LAYERS = {"n_layer": 2, "n_head": 2, "n_embd": 32}
_POSITIONS = 256


def architecture_of(hub_id: str) -> str:
    """The architecture a hub id of the papers is built on (``"openai-community/gpt2-large"``
    -> ``"gpt2"``); a ``ValueError`` naming the id and the known ones otherwise."""
    for stem in sorted(ARCHITECTURES, key=len, reverse=True):
        if hub_id == stem or hub_id.startswith((stem + "-", stem + "_")) or hub_id.startswith(stem + "/"):
            return ARCHITECTURES[stem]
    raise ValueError(f"no tiny stand-in for {hub_id!r} in a dry run; known architectures: "
                     + ", ".join(sorted(set(ARCHITECTURES.values()))))


def _byte_vocab(specials: list[str]) -> dict[str, int]:
    from tokenizers.pre_tokenizers import ByteLevel

    return {t: i for i, t in enumerate(specials + sorted(ByteLevel.alphabet()))}


def _chars() -> list[str]:
    return sorted(set(string.printable) - set(string.whitespace))


def _gpt2(folder: Path, seed: int):
    from transformers import GPT2Config, GPT2LMHeadModel, GPT2Tokenizer

    vocab = _byte_vocab(["<|endoftext|>"])
    write_json(vocab, folder / "vocab.json")
    write_text("#version: 0.2\n", folder / "merges.txt")
    tok = GPT2Tokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"))
    cfg = GPT2Config(vocab_size=len(vocab), n_positions=_POSITIONS, bos_token_id=0, eos_token_id=0,
                     **_LAYERS)
    return GPT2LMHeadModel(cfg), tok


def _ctrl(folder: Path, seed: int):
    from transformers import CTRLConfig, CTRLLMHeadModel, CTRLTokenizer

    codes = ["Wikipedia", "Thoughts", "Opinion", "Links", "Books", "Reviews"]
    tokens = ["<unk>", *codes, *_chars(), *(c + "@@" for c in _chars())]
    vocab = {t: i for i, t in enumerate(dict.fromkeys(tokens))}
    write_json(vocab, folder / "vocab.json")
    write_text("#version: 0.2\n", folder / "merges.txt")
    tok = CTRLTokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"))
    cfg = CTRLConfig(vocab_size=len(vocab), n_positions=_POSITIONS, dff=64, **_LAYERS)
    return CTRLLMHeadModel(cfg), tok


def _bert(folder: Path, seed: int):
    from transformers import BertConfig, BertForPreTraining, BertTokenizer

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *_chars(), *("##" + c for c in _chars())]
    write_text("\n".join(words) + "\n", folder / "vocab.txt")
    tok = BertTokenizer(str(folder / "vocab.txt"), do_lower_case=False)
    cfg = BertConfig(vocab_size=len(words), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=_POSITIONS)
    return BertForPreTraining(cfg), tok


def _roberta(folder: Path, seed: int):
    from transformers import RobertaConfig, RobertaForMaskedLM, RobertaTokenizer

    vocab = _byte_vocab(["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    write_json(vocab, folder / "vocab.json")
    write_text("#version: 0.2\n", folder / "merges.txt")
    tok = RobertaTokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"))
    cfg = RobertaConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=_POSITIONS + 2, pad_token_id=1,
                        bos_token_id=0, eos_token_id=2)
    return RobertaForMaskedLM(cfg), tok


def _blenderbot(folder: Path, seed: int):
    from transformers import (
        BlenderbotConfig,
        BlenderbotForConditionalGeneration,
        BlenderbotTokenizer,
    )

    vocab = _byte_vocab(["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    tok = BlenderbotTokenizer(vocab=vocab, merges=[])
    cfg = BlenderbotConfig(vocab_size=len(vocab), d_model=32, encoder_layers=2, decoder_layers=2,
                           encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
                           decoder_ffn_dim=64, max_position_embeddings=_POSITIONS, bos_token_id=0,
                           pad_token_id=1, eos_token_id=2, decoder_start_token_id=1)
    return BlenderbotForConditionalGeneration(cfg), tok


def _llama(folder: Path, seed: int):
    from transformers import GPT2Tokenizer, LlamaConfig, LlamaForCausalLM

    specials = ["<|endoftext|>", "<pad>", "<|user|>", "<|assistant|>", "<|system|>", "<|end|>"]
    vocab = _byte_vocab(specials)
    write_json(vocab, folder / "vocab.json")
    write_text("#version: 0.2\n", folder / "merges.txt")
    tok = GPT2Tokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"), pad_token="<pad>",
                        additional_special_tokens=specials[2:])
    tok.chat_template = CHAT_TEMPLATE
    cfg = LlamaConfig(vocab_size=len(vocab), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=_POSITIONS,
                      bos_token_id=0, eos_token_id=[0, 5], pad_token_id=1, tie_word_embeddings=True)
    return LlamaForCausalLM(cfg), tok


_BUILDERS = {"gpt2": _gpt2, "llama": _llama, "ctrl": _ctrl, "bert": _bert, "roberta": _roberta, "blenderbot": _blenderbot}


def build_tiny(architecture: str, folder: str | Path, seed: int = 0) -> Path:
    """Write a tiny random model of ``architecture`` (a value of :data:`ARCHITECTURES`) and its
    tokenizer to ``folder`` (atomically: a folder that exists is complete). Returns the folder."""
    import torch

    if architecture not in _BUILDERS:
        raise ValueError(f"unknown architecture {architecture!r}; known: {', '.join(_BUILDERS)}")
    folder = Path(folder)
    if (folder / "config.json").is_file():
        return folder
    with atomic_dir(folder) as tmp:  # a folder that exists is complete
        torch.manual_seed(seed)
        model, tok = _BUILDERS[architecture](tmp, seed)
        model.eval().save_pretrained(tmp)
        tok.save_pretrained(tmp)
    return folder


def tiny_folder(architecture: str, cache: str | Path) -> str:
    """The dry run's model of ``architecture`` under ``cache/dry-run/<architecture>``, built on
    first use (one per architecture: GPT-2 small, medium and large share one)."""
    return str(build_tiny(architecture, Path(cache) / "dry-run" / architecture))

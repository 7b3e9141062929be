"""Tiny random models for the tests (one builder each): a word-level tokenizer, causal LMs of
three architectures, a BERT with a given vocabulary. Float32, seeded."""

from __future__ import annotations

import random

import torch

from nlgbias.models import GPT2_DECODING, LoadedModel, ModelSpec

WORDS = ("the a an man woman he she is was American actor actress doctor nurse worked as known "
         "for his her film . ! ? , and in born died city").split()
CHAT = ("{% for m in messages %}<|user|> {{ m['content'] }} <|end|> {% endfor %}"
        "{% if add_generation_prompt %}<|assistant|>{% endif %}")


def tiny_tokenizer(chat: bool = False):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(["<pad>", "<eos>", "<unk>", *WORDS,
                                         "<|user|>", "<|end|>", "<|assistant|>"])}
    t = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    t.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=t, pad_token="<pad>", eos_token="<eos>",
                                  unk_token="<unk>")
    if chat:
        tok.chat_template = CHAT
    return tok


def tiny_lm(arch: str = "llama", seed: int = 0, chat: bool = False, window: int = 64) -> LoadedModel:
    from transformers import AutoModelForCausalLM, Gemma3TextConfig, GPT2Config, LlamaConfig

    torch.manual_seed(seed)
    tok = tiny_tokenizer(chat)
    v = len(tok)
    if arch == "gpt2":
        cfg = GPT2Config(vocab_size=v, n_embd=32, n_layer=2, n_head=2, n_positions=128,
                         bos_token_id=1, eos_token_id=1, pad_token_id=0)
    elif arch == "gemma3":  # sliding-window and full layers, like gemma3-270m
        cfg = Gemma3TextConfig(vocab_size=v, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                               num_attention_heads=2, num_key_value_heads=1, head_dim=16,
                               sliding_window=window, layer_types=["sliding_attention", "full_attention"],
                               max_position_embeddings=128, bos_token_id=None, eos_token_id=1,
                               pad_token_id=0)
    else:
        cfg = LlamaConfig(vocab_size=v, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                          num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                          bos_token_id=None, eos_token_id=1, pad_token_id=0)
    model = AutoModelForCausalLM.from_config(cfg).eval()
    spec = ModelSpec(f"tiny-{arch}", "causal", description="tiny random", decoding=GPT2_DECODING)
    return LoadedModel(spec, model, tok, "cpu")


def mixed_prompts(n: int = 60, seed: int = 0) -> list[str]:
    """Prompts of 0-12 words (mixed lengths, one empty), some ending with a space."""
    rng = random.Random(seed)
    words = [w for w in WORDS if w not in ".!?,"]
    return [" ".join(rng.choice(words) for _ in range(rng.randint(0, 12))) + (" " if i % 3 else "")
            for i in range(n)]


def tiny_bert(folder, vocab: list[str], head: str = "mlm"):
    """A 2-layer BERT over ``vocab`` (its tokenizer's vocab.txt written to ``folder``):
    ``head="mlm"`` a masked LM, ``"pretraining"`` also the NSP head. Returns (model, tok, cfg)."""
    from transformers import BertConfig, BertForMaskedLM, BertForPreTraining, BertTokenizer

    vf = folder / "vocab.txt"
    vf.write_text("\n".join(vocab) + "\n")
    tok = BertTokenizer(str(vf), do_lower_case=True)
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=2,
                     num_attention_heads=2, intermediate_size=32, max_position_embeddings=64)
    cls = BertForPreTraining if head == "pretraining" else BertForMaskedLM
    return cls(cfg).eval(), tok, cfg


def save_tiny_encoder(folder):
    """Save a 1-layer random BERT encoder with a word-level tokenizer (regard texts' words) to
    ``folder`` and return it: a stand-in for MiniLM in the regard classifier's tests."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    words = "[PAD] [UNK] [CLS] [SEP] XYZ was known for kind cruel a job as thief nurse . good bad".split()
    tk = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tk.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="[PAD]", unk_token="[UNK]").save_pretrained(folder)
    torch.manual_seed(0)
    BertModel(BertConfig(vocab_size=len(words), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=32)).save_pretrained(folder)
    return folder

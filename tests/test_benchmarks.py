"""The benchmarks count every engine's delivered tokens the same way."""

from __future__ import annotations

import sys

from nlgbias.paths import project_root

sys.path.insert(0, str(project_root() / "benchmarks"))

from bench_generate import delivered_tokens, kept_tokens


class CharTokenizer:
    """One token per character, white space included (as a byte-level tokenizer gives a token to
    a leading line break)."""

    pad_token_id, eos_token_id = 0, 1

    def __call__(self, text, add_special_tokens=False):
        return {"input_ids": [ord(c) for c in text]}

    def decode(self, ids, skip_special_tokens=True):
        return "".join(chr(i) for i in ids if i > 1)


def test_a_baselines_ids_and_our_engines_text_of_one_continuation_count_alike():
    tok = CharTokenizer()
    ids = tok("\n The nurse was kind. She left")["input_ids"] + [tok.eos_token_id, tok.pad_token_id]
    ours = "The nurse was kind."  # what the engine delivers: cut at the first sentence, stripped
    assert kept_tokens(tok, "prompt", ids, cut=True) == (delivered_tokens(tok, ours, True), 30)
    assert delivered_tokens(tok, ours, True) == len(ours) == 19
    assert kept_tokens(tok, "prompt", ids, cut=False) == (30, 30)  # fixed length: the ids themselves
    assert delivered_tokens(tok, " The nurse was kind. She left ", False) == 28


def test_a_leading_line_break_is_not_counted_with_a_byte_level_tokenizer():
    """With a byte-level BPE (GPT-2's kind: a leading space joins the word, a line break is a token
    of its own) a baseline's continuation that starts with a line break counts as many tokens as
    the stripped text our engine delivers; counted unstripped it would count one more."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import PreTrainedTokenizerFast

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(["The nurse was kind. She left.", "\n The nurse was kind."] * 20,
                            vocab_size=300, min_frequency=1, special_tokens=["<pad>", "<eos>"])
    tok = PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer, pad_token="<pad>", eos_token="<eos>")
    ids = tok("\n The nurse was kind. She left", add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
    ours = "The nurse was kind."
    n = len(tok(ours, add_special_tokens=False)["input_ids"])
    assert kept_tokens(tok, "prompt", ids, cut=True)[0] == delivered_tokens(tok, ours, True) == n
    assert len(tok("\n The nurse was kind.", add_special_tokens=False)["input_ids"]) == n + 1

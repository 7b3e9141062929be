"""Interrupted work loses nothing (issue 12/13): the worker is killed with SIGKILL at random
points during generation (local and sharded) and text scoring; each rerun continues, and the
final file is byte-identical to an uninterrupted run's. (Tuning and classifier training have
their own resume tests in test_tuning.py and test_regard.py.)"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

WORKER = Path(__file__).with_name("interrupt_worker.py")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from interrupt_worker import WORDS
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    folder = tmp_path_factory.mktemp("tiny") / "tiny-gpt2"
    vocab = {w: i for i, w in enumerate(["<eos>", ".", *WORDS])}
    tk = Tokenizer(models.WordLevel(vocab, unk_token="<eos>"))
    tk.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<eos>", pad_token="<eos>")
    import torch

    torch.manual_seed(0)
    GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_positions=64, n_embd=32, n_layer=2,
                               n_head=2)).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def _run(mode, out, model, kill_after=None):
    env = {**os.environ, "NLGBIAS_PROGRESS": "off", "NLGBIAS_ROOT": str(Path.cwd()),
           "PYTHONPATH": str(WORKER.parent)}
    p = subprocess.Popen([sys.executable, str(WORKER), mode, str(out), str(model)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        p.wait(timeout=kill_after)
        assert p.returncode == 0, p.stdout.read().decode()[-3000:]
        return True
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGKILL)
        p.wait()
        return False


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["generate", "shards", "score"])
def test_killed_runs_resume_to_the_same_bytes(mode, tiny_model, tmp_path):
    ref = tmp_path / "ref" / "out"  # each run has its own resume cache beside its output
    t0 = time.time()
    assert _run(mode, ref, tiny_model)
    took = time.time() - t0
    rng = random.Random(mode)
    out = tmp_path / "killed" / "out"
    kills = 0
    for _ in range(12):
        if _run(mode, out, tiny_model, kill_after=rng.uniform(0.3, 1.0) * took):
            break
        kills += 1
    else:
        assert _run(mode, out, tiny_model)
    assert kills >= 1, "the worker was never interrupted: make it slower"
    final = sorted(p.name for p in ref.glob("t__*.parquet"))
    assert final and final == sorted(p.name for p in out.glob("t__*.parquet"))
    for name in final:
        assert (ref / name).read_bytes() == (out / name).read_bytes(), f"{name} differs after {kills} kills"

"""Interrupted work loses nothing: the worker is killed with SIGKILL at random
points during generation (local and sharded), text scoring, CAT / perplexity scoring (the
shared likelihood engine), classifier training (06: Figure 1 runs + the saved classifier) and
bias tuning (08); each rerun continues, and the final files are byte-identical to an
uninterrupted run's (tuning.json: equal apart from its wall-clock ``seconds``). Generation and
likelihood scoring also on SmolLM2-135M in bfloat16, where only the fixed chunk schedule makes a
resumed run's numbers those of an uninterrupted one."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tiny import save_tiny_encoder

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


@pytest.fixture(scope="module")
def tiny_encoder(tmp_path_factory):
    """A tiny random BERT encoder folder for the regard classifier."""
    return save_tiny_encoder(tmp_path_factory.mktemp("enc") / "tiny-bert")


def final_files(out: Path) -> dict[str, Path]:
    """The worker's final outputs: files named ``t__*`` in ``out`` and inside ``t__*`` folders
    (not the resume caches)."""
    return {str(p.relative_to(out)): p for p in sorted(out.rglob("*"))
            if p.is_file() and p.relative_to(out).parts[0].startswith("t__")
            and not p.name.startswith(".")}


def cached_chunks(out: Path) -> int:
    """Chunk files in the resume caches of a run into ``out`` (beside it or inside it)."""
    return sum(1 for p in out.parent.rglob("*.parquet") if p.name.startswith(("chunk-", "shard-")))


def _run(mode, out, model, kill_after=None, kill_at=None):
    """Run the worker; given ``kill_after``, SIGKILL it that many seconds into its job (timed
    from its READY line, after the imports); given ``kill_at=(n, frac)``, SIGKILL it once the
    resume caches of ``out`` hold ``n`` chunks plus ``frac`` of the mean time this worker took
    per chunk so far (a point inside the job however loaded the machine is). Returns the seconds its job took when it ran to the end,
    None when it was killed."""
    env = {**os.environ, "NLGBIAS_PROGRESS": "off", "NLGBIAS_ROOT": str(Path.cwd()),
           "PYTHONPATH": str(WORKER.parent)}
    out.parent.mkdir(parents=True, exist_ok=True)
    log = out.parent / "worker.log"
    with open(log, "wb") as f:
        p = subprocess.Popen([sys.executable, str(WORKER), mode, str(out), str(model)], env=env,
                             stdout=f, stderr=subprocess.STDOUT)
        while p.poll() is None and b"READY\n" not in log.read_bytes():
            time.sleep(0.01)
        t0 = time.time()
        if kill_at is not None:
            n0 = cached_chunks(out)
            while p.poll() is None and cached_chunks(out) < kill_at[0]:
                time.sleep(0.005)
            kill_after = kill_at[1] * (time.time() - t0) / max(1, kill_at[0] - n0)
        try:
            p.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGKILL)
            p.wait()
            return None
    assert p.returncode == 0, log.read_text(errors="replace")[-3000:]
    return time.time() - t0


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["generate", "shards", "score", "likelihood", "train", "tune"])
def test_killed_runs_resume_to_the_same_bytes(mode, tiny_model, tiny_encoder, tmp_path, monkeypatch):
    model = tiny_encoder if mode == "train" else tiny_model
    # generation is killed twice (a resumed run is killed again; so are both bf16 modes below),
    # the other jobs once, then a run to the end
    kill_and_compare(mode, str(model), tmp_path, monkeypatch, most=2 if mode == "generate" else 1)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["generate-bf16", "likelihood-bf16"])
def test_killed_bf16_runs_of_a_real_model_resume_to_the_same_bytes(mode, tmp_path, monkeypatch):
    """SmolLM2-135M in bfloat16 at 2 threads, where a row's numbers depend on its batch-mates:
    generation (samples, continuous batching, chunks of 5 rows) and likelihood scoring
    (StereoSet CATs, HolisticBias perplexity) killed twice at random points, then finished,
    write the bytes of an uninterrupted run."""
    pytest.importorskip("gguf")
    kill_and_compare(mode, "smollm2-135m", tmp_path, monkeypatch, most=2, by_chunks=True)


def kill_and_compare(mode: str, model: str, tmp_path: Path, monkeypatch, most: int,
                     by_chunks: bool = False) -> None:
    """Run ``mode`` uninterrupted (in this process), then in worker processes killed with
    SIGKILL ``most`` times at random points of the job and finished; assert equal final files.
    ``by_chunks``: each kill lands a random fraction of a chunk's time after a random number of
    cached chunks (progress, not the clock: a loaded machine cannot move it past the end)."""
    import interrupt_worker as W

    ref = tmp_path / "ref" / "out"  # each run has its own resume cache beside its output
    # the uninterrupted reference runs in this process (one interpreter start less per mode)
    monkeypatch.setenv("NLGBIAS_PROGRESS", "off")
    W.preload(mode, model)
    t0 = time.time()
    W.main(mode, ref, model)
    took = time.time() - t0
    rng = random.Random(mode)
    out = tmp_path / "killed" / "out"
    n = cached_chunks(ref)
    marks = sorted(rng.sample(range(1, n - 1), most)) if by_chunks else []
    kills = 0
    while kills < most:
        kw = ({"kill_at": (marks[kills], rng.uniform(0, 0.9))} if by_chunks
              else {"kill_after": rng.uniform(0.15, 0.75) * took})
        if _run(mode, out, model, **kw) is not None:
            break
        kills += 1
    assert kills >= 1, "the worker finished before it was killed: make its job longer"
    if kills == most:
        assert _run(mode, out, model) is not None
    want, got = final_files(ref), final_files(out)
    assert want and sorted(want) == sorted(got)
    for name, path in want.items():
        a, b = path.read_bytes(), got[name].read_bytes()
        if path.name == "tuning.json":  # the wall-clock training time differs; all else equal
            a, b = ({k: v for k, v in json.loads(x).items() if k != "seconds"} for x in (a, b))
        assert a == b, f"{name} differs after {kills} kills"
    print(f"{mode}: {kills} kills, {len(want)} final files, uninterrupted job {took:.1f} s")


def test_figure1_runs_cached_equal_uncached(tiny_encoder, tmp_path):
    """06's Figure 1 runs through the resume cache give the same tables as without it, and a
    second call reads every run from the cache (nothing is trained again)."""
    from interrupt_worker import annotations

    from nlgbias.metrics import regard as R
    from nlgbias.regard import experiments as X

    enc, ann = R.Encoder(str(tiny_encoder)), annotations()
    kw = {"encoder": enc, "grid": (0.001, 0.1), "lstm_epochs": 1}
    runs0, sel0 = X.figure1_runs(ann, [0, 1], **kw)
    runs1, sel1 = X.figure1_runs(ann, [0, 1], cache_dir=tmp_path, **kw)
    (folder,) = tmp_path.glob("figure1_*")
    assert len(list((folder / "alpha").glob("shard-*.parquet"))) == 2  # one per alpha
    assert len(list((folder / "runs").glob("shard-*.parquet"))) == 2 * 3  # 2 seeds x (ours, other, LSTM)
    fit = R.fit
    R.fit = None  # a cached rerun must not train
    try:
        runs2, sel2 = X.figure1_runs(ann, [0, 1], cache_dir=tmp_path, **kw)
    finally:
        R.fit = fit
    for runs, sel in ((runs1, sel1), (runs2, sel2)):
        assert runs.equals(runs0)
        assert sel.drop(columns="dev_per_seed").equals(sel0.drop(columns="dev_per_seed"))
        assert sel["dev_per_seed"].tolist() == sel0["dev_per_seed"].tolist()

"""The runs of notebook 08's bias-tuning experiment (HolisticBias §5): one tuned model per
(kind, β, seed), and a tuned model's style-scored responses to a set of sentences.

- :func:`tune` tunes the chat model on the tuning split, each context tagged with its bias
  label at β (``beta=None``: the untagged ablation), with early stopping on the validation
  pairs (:func:`nlgbias.holistic.tuning.train`: resumable, reused when the same data and
  settings were tuned before).
- :func:`answer` prompts a tuned model folder with the sentences of a frame ("no_bias" appended
  for a tagged model, as at inference in §5.2) through the generation engine, with notebook
  07's decoding and seed, and scores the responses' style as 07 does.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from nlgbias.holistic import bias_labels as BL
from nlgbias.holistic import responses as HR
from nlgbias.holistic import tuning as TU


def config(*, max_steps: int, batch_size: int, lr: float, eval_every: int, patience: int,
           seed: int, lora_r: int = 8, min_delta: float = 0.0) -> TU.TuningConfig:
    """The experiment's tuning settings (checkpoints every evaluation, 10 % warm-up, LoRA alpha
    twice the rank; ``min_delta``: the relative drop of the validation loss that counts as
    progress for early stopping)."""
    return TU.TuningConfig(max_steps=max_steps, batch_size=batch_size, lr=lr, eval_every=eval_every,
                           save_every=eval_every, patience=patience,
                           warmup_steps=max(1, max_steps // 10), seed=seed, lora_r=lora_r,
                           lora_alpha=2 * lora_r, min_delta=min_delta)


def encode(lm, frame: pd.DataFrame, beta: float | None) -> list:
    """Context/response pairs of ``frame`` (columns prompt, generation, bias_value), each context
    tagged with its bias label at ``beta`` (None: untagged)."""
    if beta is None:
        contexts = frame["prompt"].tolist()
    else:
        tags = BL.tag_responses(frame["bias_value"], beta)
        contexts = [TU.tag_context(p, t) for p, t in zip(frame["prompt"], tags, strict=True)]
    return TU.encode_pairs(lm.tokenizer, contexts, frame["generation"].tolist())


def tune(lm, frame: pd.DataFrame, is_train: np.ndarray, val_keep: np.ndarray, beta: float | None,
         conf: TU.TuningConfig, models_dir: str | Path, name: str) -> TU.TuningResult:
    """Tune ``lm`` on the rows ``is_train`` of ``frame`` (validation: rows ``val_keep``), tagged at
    ``beta`` (None: the ablation without tags)."""
    enc = encode(lm, frame, beta)
    return TU.train(lm, [e for e, k in zip(enc, is_train, strict=True) if k],
                    [e for e, k in zip(enc, val_keep, strict=True) if k], models_dir, name, conf)


def answer(folder: str | Path, beta: float | None, frame: pd.DataFrame, out_dir: str | Path,
           cache_dir: str | Path, *, dataset: str, samples: int, seed: int, params,
           batch_size: int = 32, columns: Sequence[str] = HR.SENTENCE_COLUMNS) -> pd.DataFrame:
    """Style-scored responses of the tuned model in ``folder`` to the sentences of ``frame``
    (its ``prompt`` column; "no_bias" appended when ``beta`` is not None)."""
    from nlgbias.generation import generate_dataset

    prompts = (frame[[*columns, "prompt"]].drop_duplicates("prompt_id").reset_index(drop=True)
               .rename(columns={"prompt": "sentence"}))
    tagged = prompts.assign(prompt=[TU.tag_context(x, None if beta is None else BL.NO_BIAS_TAG)
                                    for x in prompts["sentence"]])
    info = generate_dataset(tagged, str(folder), out_dir, dataset=dataset, prompt_format="chat",
                            samples_per_prompt=samples, seed=seed, params=params, batch_size=batch_size)
    return HR.style_responses(pd.read_parquet(info.path), cache_dir)


__all__ = ["answer", "config", "encode", "tune"]

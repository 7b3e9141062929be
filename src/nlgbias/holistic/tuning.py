"""Bias-reduction tuning (HolisticBias, Smith et al. 2022, §5.2 and Appendix C).

The model is tuned on its own responses to HolisticBias sentences, each context ending in the
response's bias label (``"bias"``/``"no_bias"``, :mod:`nlgbias.holistic.bias_labels`); at
inference ``"no_bias"`` is appended to steer it towards responses without the descriptor's
characteristic style (controlled generation, Weston et al. 2018; Smith et al. 2020a). The
ablation tunes on the same pairs without tags.

Appendix C: batch size 16 on 8 GPUs, early stopping with validation perplexity, Adam with 100
warm-up steps (BlenderBot 2.0 3B), learning rate swept. Here: LoRA adapters (``peft``) on every
linear layer (or full fine-tuning, ``method="full"``), AdamW with linear warm-up and decay, the
loss on the response tokens only, early stopping on the validation loss with a patience, and
the best weights kept.

- :func:`tag_context` appends the tag to a context (the one function used for training and for
  generation, so the tag the model was tuned on is the one it is prompted with).
- :func:`split_descriptors` splits responses into train / val / test by descriptor, so a
  descriptor seen in tuning is never used to measure the tuned model (:func:`split_pairs`, by
  descriptor-template pair, is kept for other uses: it lets test descriptors appear in tuning).
- :func:`encode_example` encodes a context/response pair with the model's chat template (the
  context is the user turn, the response the assistant turn; labels only on the response).
- :func:`train` runs the tuning with a resumable checkpoint under ``data/<profile>/models/``
  (an interrupted run continues to the same weights as an uninterrupted one) and saves the
  merged model with ``save_pretrained`` so the generation engine loads it as a local folder.
- :func:`response_nll` / :func:`perplexity_of` measure the cost: perplexity of held-out
  responses and of general text under the original and the tuned model.

Examples:
    >>> tag_context("I love blind people.", "no_bias")
    'I love blind people.\\nno_bias'
    >>> tag_context("I love blind people.", None)
    'I love blind people.'
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import math
import os
import shutil
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from nlgbias.hardware import set_torch_threads
from nlgbias.io import atomic_path, write_json
from nlgbias.progress import tqdm

log = logging.getLogger(__name__)

TAG_SEP = "\n"
TUNING_VERSION = 3  # bump when a change alters the trained weights (invalidates run folders)
#: when a guarded run checks its evaluations (part of its digest): after training, lowest validation loss first
GUARD_SCHEDULE = "guard checks: after training, ascending validation loss (ties: earlier step), until one passes"


def tag_context(prompt: str, tag: str | None, sep: str = TAG_SEP) -> str:
    """The context with the bias label appended at its end (§5.2); ``tag=None`` leaves it."""
    if tag is None:
        return prompt
    if not isinstance(tag, str) or not tag:
        raise ValueError(f"tag must be a non-empty string or None, got {tag!r}")
    return f"{prompt}{sep}{tag}"


def split_pairs(frame: pd.DataFrame, by: Sequence[str] = ("descriptor", "template"), *,
                val_frac: float = 0.1, test_frac: float = 0.3, seed: int = 0) -> pd.Series:
    """"train" / "val" / "test" per row, assigned per (descriptor, template) pair at random.

    Every response to one templated sentence lands in the same part, so validation and the
    held-out generation never see a sentence the model was tuned on.
    """
    missing = set(by) - set(frame.columns)
    if missing:
        raise KeyError(f"split_pairs needs column(s) {', '.join(sorted(missing))}")
    if not (0 <= val_frac < 1 and 0 <= test_frac < 1 and val_frac + test_frac < 1):
        raise ValueError(f"val_frac={val_frac} and test_frac={test_frac} must be >= 0 and sum to < 1")
    keys = frame[list(by)].astype(str).agg("\x1f".join, axis=1)
    pairs = np.array(sorted(keys.unique()))
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(pairs))
    n_test = int(round(test_frac * len(pairs)))
    n_val = int(round(val_frac * len(pairs)))
    part = np.full(len(pairs), "train", dtype=object)
    part[order[:n_test]] = "test"
    part[order[n_test:n_test + n_val]] = "val"
    lookup = dict(zip(pairs, part, strict=True))
    return keys.map(lookup).rename("split")


def split_descriptors(frame: pd.DataFrame, *, val_per_axis: int = 1, test_per_axis: int = 2,
                      seed: int = 0, axis: str = "axis", descriptor: str = "descriptor") -> pd.Series:
    """"train" / "val" / "test" per row, assigned per **descriptor**: within each axis (sorted),
    the descriptors are shuffled (seeded) and the first ``test_per_axis`` held out for the
    test, the next ``val_per_axis`` for validation, the rest for tuning. A descriptor listed
    on two axes takes the part of its first axis on both, so no test descriptor appears in the
    tuning or validation data under any template, noun or axis: the tuned model is measured on
    descriptors it never saw. Every axis keeps at least one training descriptor.
    """
    missing = {axis, descriptor} - set(frame.columns)
    if missing:
        raise KeyError(f"split_descriptors needs column(s) {', '.join(sorted(missing))}")
    if val_per_axis < 0 or test_per_axis < 0:
        raise ValueError("val_per_axis and test_per_axis must be >= 0")
    rng = np.random.default_rng(seed)
    part: dict[str, str] = {}
    for _, g in frame.groupby(axis, sort=True):
        descs = [d for d in sorted(g[descriptor].astype(str).unique()) if d not in part]
        order = [descs[i] for i in rng.permutation(len(descs))]
        n_test = min(test_per_axis, max(0, len(order) - 1))
        n_val = min(val_per_axis, max(0, len(order) - 1 - n_test))
        for i, d in enumerate(order):
            part[d] = "test" if i < n_test else "val" if i < n_test + n_val else "train"
    return frame[descriptor].astype(str).map(part).rename("split")


# --------------------------------------------------------------------------- encoding
def _ids(tokenizer, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def encode_example(tokenizer, context: str, response: str, *, prompt_format: str = "chat",
                   max_length: int = 128, complete: bool = True) -> tuple[list[int], list[int]]:
    """Token ids and labels (-100 on the context) of one context/response pair.

    ``"chat"``: the context is the user turn and the response the assistant turn of the
    tokenizer's chat template (what ``generate_dataset(..., prompt_format="chat")`` prompts
    with); ``"plain"``: context, then a space and the response, then EOS (``context=""`` scores
    a whole text). Longer pairs lose the end of the response (never the context).
    ``complete=False``: the response was cut by a token limit (the engine's finish reason
    "length"), so the target stops with its text: no end of turn / EOS after it (tuning on it
    would teach the model to end its turn mid-sentence).
    """
    if prompt_format == "chat":
        if not getattr(tokenizer, "chat_template", None):
            raise ValueError("prompt_format='chat' but the tokenizer has no chat template; "
                             "use prompt_format='plain'")
        user = [{"role": "user", "content": context}]
        prefix_text = tokenizer.apply_chat_template(user, add_generation_prompt=True, tokenize=False)
        full_text = tokenizer.apply_chat_template(
            [*user, {"role": "assistant", "content": response}], tokenize=False)
        if not full_text.startswith(prefix_text):
            raise ValueError("the chat template renders the user turn differently with and without "
                             "the assistant turn; cannot separate context from response")
        prefix = _ids(tokenizer, prefix_text)
        rest = full_text[len(prefix_text):]
        if not complete:  # the response's text only, without the turn's end
            end = rest.find(response.strip())
            rest = rest[: end + len(response.strip())] if end >= 0 and response.strip() else rest
        target = _ids(tokenizer, rest)
    elif prompt_format == "plain":
        bos = [tokenizer.bos_token_id] if tokenizer.bos_token_id is not None else []
        prefix = bos + (_ids(tokenizer, context) if context else [])
        target = _ids(tokenizer, f" {response}" if context else response)
        if tokenizer.eos_token_id is not None and complete:
            target.append(tokenizer.eos_token_id)
    else:
        raise ValueError(f"prompt_format must be 'chat' or 'plain', got {prompt_format!r}")
    if len(prefix) >= max_length:
        raise ValueError(f"context of {len(prefix)} tokens does not fit max_length={max_length}: "
                         f"{context[:60]!r}")
    target = target[: max_length - len(prefix)]
    if not target:
        raise ValueError(f"empty response for context {context[:60]!r}")
    labels = [-100] * len(prefix) + target
    if not prefix:  # the first token has nothing to condition on
        labels[0] = -100
    return prefix + target, labels


def encode_pairs(tokenizer, contexts: Sequence[str], responses: Sequence[str], *,
                 prompt_format: str = "chat", max_length: int = 128,
                 complete: Sequence[bool] | None = None) -> list[tuple[list[int], list[int]]]:
    """:func:`encode_example` of each pair (``complete``: per pair, whether the response ended on
    its own; None: all did)."""
    if len(contexts) != len(responses):
        raise ValueError(f"{len(contexts)} contexts but {len(responses)} responses")
    done = [True] * len(responses) if complete is None else [bool(x) for x in complete]
    if len(done) != len(responses):
        raise ValueError(f"{len(done)} complete flags but {len(responses)} responses")
    return [encode_example(tokenizer, c, r, prompt_format=prompt_format, max_length=max_length, complete=d)
            for c, r, d in zip(contexts, responses, done, strict=True)]


def _collate(examples: Sequence[tuple[list[int], list[int]]], pad_id: int):
    import torch

    n = max(len(ids) for ids, _ in examples)
    ids = torch.full((len(examples), n), pad_id, dtype=torch.long)
    labels = torch.full((len(examples), n), -100, dtype=torch.long)
    att = torch.zeros((len(examples), n), dtype=torch.long)
    for i, (x, y) in enumerate(examples):
        ids[i, : len(x)] = torch.tensor(x)
        labels[i, : len(y)] = torch.tensor(y)
        att[i, : len(x)] = 1
    return ids, att, labels


def _pad_id(tokenizer) -> int:
    for tid in (tokenizer.pad_token_id, tokenizer.eos_token_id, 0):
        if tid is not None:
            return int(tid)
    return 0  # pragma: no cover


#: model types whose causal-LM forward is its decoder followed by the output layer and nothing
#: else (no logit scaling or soft-capping): their losses need the output layer only at the
#: positions whose next token is labelled (the response), which saves most of its product
PLAIN_HEAD_TYPES = frozenset({"llama", "qwen2"})


def _causal_lm(model):
    """The transformers model itself (a peft model's base model, with its adapters in place)."""
    return model.get_base_model() if hasattr(model, "get_base_model") else model


def _plain_head(model) -> bool:
    return getattr(getattr(_causal_lm(model), "config", None), "model_type", None) in PLAIN_HEAD_TYPES


def _hidden(model, ids, att):
    """The decoder's last hidden states (the output layer's input), for a plain-head model."""
    return _causal_lm(model).get_decoder()(input_ids=ids, attention_mask=att).last_hidden_state


def _train_loss(model, ids, att, labels):
    """The mean NLL of the labelled tokens, the model's own ``labels=`` loss bit for bit.

    For a plain-head model (:data:`PLAIN_HEAD_TYPES`) whose output layer is frozen (LoRA) the
    output layer runs on the labelled positions only; their log-probabilities go back to their
    places among the batch's positions and ``nll_loss`` averages them as the model's loss does
    (same values, same order of summation), so the loss and its gradients are the same bytes
    (tested). A trained output layer (full tuning) takes the model's own loss: its weight's
    gradient sums over the positions, and a sum over fewer of them can round differently (it did
    on an AMD EPYC, by one float32 step, while an Intel Xeon with AMX gave the same bytes)."""
    import torch
    import torch.nn.functional as F

    if not _plain_head(model) or model.get_output_embeddings().weight.requires_grad:
        return model(input_ids=ids, attention_mask=att, labels=labels).loss
    h = _hidden(model, ids, att)
    target = F.pad(labels, (0, 1), value=-100)[:, 1:].reshape(-1)  # the next token's label
    keep = (target != -100).nonzero().squeeze(1)
    logits = model.get_output_embeddings()(h.reshape(-1, h.shape[-1])[keep]).float()
    logp = logits.log_softmax(-1).gather(1, target[keep, None])
    placed = logp.new_zeros(target.numel(), 1).index_copy(0, keep, logp)
    return F.nll_loss(placed, torch.where(target != -100, 0, -100), ignore_index=-100)


def _example_nll(model, ids, att, labels):
    """Per-example (sum of token NLL, number of scored tokens). For a plain-head model the output
    layer runs on the labelled positions only (the other positions' logits are zeros, which no
    scored token reads): the same bytes (tested)."""
    import torch

    target = labels[:, 1:]
    mask = target != -100
    if _plain_head(model):
        h = _hidden(model, ids, att)[:, :-1]
        at = mask.nonzero(as_tuple=True)
        kept = model.get_output_embeddings()(h[at]).float()
        logits = kept.new_zeros(*h.shape[:2], kept.shape[-1])
        logits[at] = kept
    else:
        logits = model(input_ids=ids, attention_mask=att).logits[:, :-1].float()
    nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), target.clamp(min=0),
                                            reduction="none")
    return (nll * mask).sum(1), mask.sum(1)


def response_nll(model, tokenizer, encoded: Sequence[tuple[list[int], list[int]]], *,
                 batch_size: int = 16, progress: bool = False, desc: str = "scoring") -> pd.DataFrame:
    """Sum of the NLL of each example's labelled tokens (``nll``) and their number (``n_tokens``)."""
    import torch

    pad = _pad_id(tokenizer)
    order = np.argsort([len(x) for x, _ in encoded], kind="stable")
    nll = np.zeros(len(encoded))
    n_tok = np.zeros(len(encoded), dtype=int)
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for s in tqdm(range(0, len(order), batch_size), desc=desc, disable=not progress):
            idx = order[s: s + batch_size]
            sums, counts = _example_nll(model, *_collate([encoded[i] for i in idx], pad))
            nll[idx] = sums.double().numpy()
            n_tok[idx] = counts.numpy()
    if was_training:
        model.train()
    return pd.DataFrame({"nll": nll, "n_tokens": n_tok})


def perplexity_of(scores: pd.DataFrame) -> float:
    """Corpus perplexity exp(Σ NLL / Σ tokens) of :func:`response_nll` rows."""
    total = scores["n_tokens"].sum()
    if total == 0:
        raise ValueError("no scored tokens")
    return float(math.exp(scores["nll"].sum() / total))


# --------------------------------------------------------------------------- training
@dataclass(frozen=True)
class TuningConfig:
    """Hyper-parameters of one tuning run (Appendix C; sizes stated in the notebook)."""

    max_steps: int = 300
    batch_size: int = 8
    lr: float = 1e-3
    warmup_steps: int = 10
    weight_decay: float = 0.0
    method: str = "lora"  # "lora" (peft) or "full"
    lora_r: int = 8
    lora_alpha: int = 16
    lora_dropout: float = 0.0
    eval_every: int = 20
    patience: int = 3
    #: an evaluation counts as progress when it lowers the validation loss by at least this share
    #: of the loss at the last progress (0: any decrease); ``patience`` evaluations without
    #: progress mean the validation loss has reached a plateau and the run stops
    min_delta: float = 0.0
    save_every: int = 20
    eval_batch_size: int = 16
    max_length: int = 128
    prompt_format: str = "chat"
    seed: int = 0

    def __post_init__(self) -> None:
        if self.method not in ("lora", "full"):
            raise ValueError(f"method must be 'lora' or 'full', got {self.method!r}")
        for name in ("max_steps", "batch_size", "eval_every", "save_every", "patience", "eval_batch_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.lr <= 0:
            raise ValueError(f"lr must be > 0, got {self.lr}")
        if not 0 <= self.min_delta < 1:
            raise ValueError(f"min_delta must be in [0, 1), got {self.min_delta}")


@dataclass
class TuningResult:
    """What :func:`train` produced: the merged model folder and the training curve."""

    folder: Path
    history: pd.DataFrame  # step, train_loss, val_loss (NaN between evaluations)
    best_step: int
    best_val_loss: float
    steps_run: int
    stopped_early: bool
    seconds: float
    resumed_from: int = 0
    info: dict = field(default_factory=dict)

    @property
    def val_perplexity(self) -> float:
        return float(math.exp(self.best_val_loss))


def run_digest(base: str, config: TuningConfig, train: Sequence, val: Sequence, guard: str = "",
               schedule: str = "") -> str:
    """A digest of everything that determines the tuned weights and their record (model, settings,
    data, the guard that picks the weights kept, by its description ``guard``, and when its checks
    are made, ``schedule``: a run folder holds the checks made, so another schedule is another run)."""
    h = hashlib.sha256()
    meta = {"base": base, "config": asdict(config), "version": TUNING_VERSION}
    if guard:
        meta["guard"] = guard
    if schedule:
        meta["guard schedule"] = schedule
    h.update(json.dumps(meta, sort_keys=True).encode())
    for part in (train, val):
        for ids, labels in part:
            h.update(np.asarray(ids, dtype=np.int64).tobytes())
            h.update(np.asarray(labels, dtype=np.int64).tobytes())
        h.update(b"|")
    return h.hexdigest()[:10]


def _lr_lambda(config: TuningConfig):
    def f(step: int) -> float:
        if step < config.warmup_steps:
            return (step + 1) / (config.warmup_steps + 1)
        rest = max(1, config.max_steps - config.warmup_steps)
        return max(0.0, 1.0 - (step - config.warmup_steps) / rest)
    return f


def _batch_indices(step: int, n: int, batch_size: int, seed: int) -> list[int]:
    """Examples of step ``step``: consecutive slices of seeded per-epoch permutations.

    A function of the step alone, so a resumed run sees the same batches."""
    out: list[int] = []
    pos = step * batch_size
    while len(out) < batch_size:
        epoch, offset = divmod(pos, n)
        perm = np.random.default_rng([seed, epoch]).permutation(n)
        take = perm[offset: offset + batch_size - len(out)]
        out.extend(int(i) for i in take)
        pos += len(take)
    return out


def _trainable_state(model) -> dict:
    return {k: v.detach().clone() for k, v in model.named_parameters() if v.requires_grad}


def _load_trainable(model, state: dict) -> None:
    import torch

    params = dict(model.named_parameters())
    missing = [k for k in state if k not in params]
    if missing:
        raise KeyError(f"checkpoint holds parameters the model lacks: {missing[:3]}")
    with torch.no_grad():
        for k, v in state.items():
            params[k].copy_(v)


def _prepare(base_model, config: TuningConfig):
    import torch

    torch.manual_seed(config.seed)
    model = copy.deepcopy(base_model)
    model.float()
    if config.method == "lora":
        from nlgbias.extras import require

        peft = require("peft")  # an optional extra: a missing one names its pip command
        lora = peft.LoraConfig(r=config.lora_r, lora_alpha=config.lora_alpha,
                          lora_dropout=config.lora_dropout, target_modules="all-linear",
                          task_type="CAUSAL_LM")
        with warnings.catch_warnings():  # peft reads transformers' deprecated alias
            warnings.filterwarnings("ignore", message="`is_gradient_checkpointing` is deprecated",
                                    category=FutureWarning)
            model = peft.get_peft_model(model, lora)
    else:
        for p in model.parameters():
            p.requires_grad_(True)
    model.train()
    return model


def _save_checkpoint(path: Path, state: dict) -> None:
    import torch

    with atomic_path(path) as tmp:
        torch.save(state, tmp)


def train(lm, train_examples: Sequence[tuple[list[int], list[int]]],
          val_examples: Sequence[tuple[list[int], list[int]]], models_dir: str | Path, name: str,
          config: TuningConfig | None = None, *, progress: bool = True,
          on_step: Callable[[int, float], None] | None = None,
          guard: Callable[[object], dict] | None = None, guard_rule: str = "") -> TuningResult:
    """Tune ``lm`` (a :class:`~nlgbias.models.LoadedModel`) on encoded examples.

    Writes ``models_dir/<name>__<digest>/`` (the merged model, tokenizer and ``tuning.json``;
    a later call with the same model, settings and data returns it without training) and, while
    training, ``models_dir/<name>__<digest>.ckpt/state.pt`` every ``save_every`` steps and on an
    interruption (Ctrl-C or an exception in ``on_step``); a rerun resumes from it to the same
    weights an uninterrupted run reaches. Every ``eval_every`` steps the validation loss (mean
    NLL per response token) is measured; after ``patience`` evaluations without progress (a loss
    lower than ``1 - min_delta`` times the loss of the last progress: a plateau) the run stops
    early; the weights of the lowest validation loss are merged and saved.

    ``guard`` (with its description ``guard_rule``, part of the digest): a check of the model's
    own responses (``guard(model) -> {"passes": bool, ...}``, e.g. a collapse guard on
    validation prompts) that the validation loss cannot see. With a guard, the trainable weights of
    every evaluation are kept while training (:data:`GUARD_SCHEDULE`); once the stopping rule (which
    reads the validation loss alone) ends the run, the evaluations are checked in ascending order of
    validation loss (ties: the earlier step first) until one passes, and the weights kept are that
    one's: the lowest validation loss that passes (``best_step``; the lowest loss's step is
    ``info["lowest_loss_step"]``; the checks made, in the order made, so every evaluation at or below
    the kept loss, ``info["guard_checks"]``). Step 0 (the untuned model) is not a candidate. This
    keeps the weights a check of each evaluation that could be kept, as it is made, keeps
    (:func:`lowest_passing`), with fewer checks. When no evaluation passes, the weights of the
    lowest validation loss are kept and ``info["guard_passed"]`` is False (never the untuned model
    in silence): the run is marked as failing its guard. An interruption during the checks resumes
    them (the checks made and the evaluations' weights are in the checkpoint).
    """
    import torch

    config = config or TuningConfig()
    if not train_examples or not val_examples:
        raise ValueError(f"need training and validation examples, got {len(train_examples)} and "
                         f"{len(val_examples)}")
    base_name = lm.spec.name
    digest = run_digest(base_name, config, train_examples, val_examples, guard_rule if guard else "",
                        schedule=GUARD_SCHEDULE if guard else "")
    models_dir = Path(models_dir)
    folder = models_dir / f"{name}__{digest}"
    ckpt_dir = models_dir / f"{name}__{digest}.ckpt"
    info_file = folder / "tuning.json"
    if info_file.is_file() and (folder / "config.json").is_file():
        info = json.loads(info_file.read_text())
        log.info("%s: already tuned (%d steps, best step %d)", folder.name, info["steps_run"], info["best_step"])
        return TuningResult(folder, pd.DataFrame(info["history"]), info["best_step"], info["best_val_loss"],
                            info["steps_run"], info["stopped_early"], info["seconds"], 0, info)
    set_torch_threads()
    tok = lm.tokenizer
    pad = _pad_id(tok)
    model = _prepare(lm.model, config)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=config.lr, weight_decay=config.weight_decay)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, _lr_lambda(config))
    state_file = ckpt_dir / "state.pt"
    step, history, best, bad, seconds, anchor = 0, [], None, 0, 0.0, float("inf")
    passed = None  # with a guard: the lowest validation loss that passed it, {"step", "val_loss", "state"}
    checks: list[dict] = []  # with a guard: the checks made, in the order made (ascending validation loss)
    states: dict[int, dict] = {}  # with a guard: the trainable weights of every evaluation (step > 0)
    trained = None  # the trainable weights when training ended (the checks load other weights)
    resumed_from = 0
    if state_file.is_file():
        st = torch.load(state_file, weights_only=False)
        _load_trainable(model, st["trainable"])
        opt.load_state_dict(st["optimizer"])
        sched.load_state_dict(st["scheduler"])
        torch.set_rng_state(st["rng"])
        step, history, bad, seconds = st["step"], st["history"], st["bad_evals"], st["seconds"]
        best = st["best"]
        checks, states, trained = st.get("checks", []), st.get("states", {}), st.get("trained")
        anchor = st.get("anchor", best["val_loss"])
        resumed_from = step
        log.info("%s: resuming at step %d", folder.name, step)

    def evaluate() -> float:
        scores = response_nll(model, tok, val_examples, batch_size=config.eval_batch_size)
        return float(scores["nll"].sum() / scores["n_tokens"].sum())

    def checkpoint() -> None:
        _save_checkpoint(state_file, {"trainable": trained if trained is not None else _trainable_state(model),
                                      "optimizer": opt.state_dict(),
                                      "scheduler": sched.state_dict(), "rng": torch.get_rng_state(),
                                      "step": step, "history": history, "bad_evals": bad,
                                      "best": best, "anchor": anchor, "seconds": seconds, "digest": digest,
                                      "checks": checks, "states": states, "trained": trained})

    if best is None:  # the untuned model's validation loss is the first "best"
        v0 = evaluate()
        history.append({"step": 0, "train_loss": float("nan"), "val_loss": v0})
        best = {"step": 0, "val_loss": v0, "state": _trainable_state(model)}
        anchor = v0  # the validation loss at the last progress
    stopped = bad >= config.patience
    bar = tqdm(total=config.max_steps, initial=step, desc=f"tune {name}", unit="step",
               disable=not progress)
    t0 = time.perf_counter()
    model.train()
    try:
        while step < config.max_steps and not stopped:
            idx = _batch_indices(step, len(train_examples), config.batch_size, config.seed)
            ids, att, labels = _collate([train_examples[i] for i in idx], pad)
            loss = _train_loss(model, ids, att, labels)
            loss.backward()
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            step += 1
            row = {"step": step, "train_loss": float(loss.detach()), "val_loss": float("nan")}
            if step % config.eval_every == 0 or step == config.max_steps:
                row["val_loss"] = evaluate()
                lower = row["val_loss"] < best["val_loss"]
                now = _trainable_state(model) if lower or guard is not None else None  # one copy for both
                if lower:
                    best = {"step": step, "val_loss": row["val_loss"], "state": now}
                if guard is not None:
                    states[int(step)] = now
                if row["val_loss"] < anchor * (1 - config.min_delta):
                    anchor, bad = row["val_loss"], 0
                else:
                    bad += 1
                    stopped = bad >= config.patience
            history.append(row)
            bar.update(1)
            bar.set_postfix(loss=f"{row['train_loss']:.3f}", val=f"{best['val_loss']:.3f}")
            if step % config.save_every == 0:
                seconds += time.perf_counter() - t0
                t0 = time.perf_counter()
                checkpoint()
            if on_step is not None:
                on_step(step, row["train_loss"])
        if guard is not None:  # the weight choice, after training
            if trained is None:
                trained = _trainable_state(model)
            evals = [(int(r["step"]), float(r["val_loss"])) for r in history
                     if r["step"] > 0 and not math.isnan(r["val_loss"])]  # in step order
            made = {int(c["step"]): c for c in checks}  # a resumed run's checks are not made again

            def passes(i: int) -> bool:
                nonlocal seconds, t0
                s, val_loss = evals[i]
                if s not in made:
                    _load_trainable(model, states[s])
                    res = _check(model, guard)
                    made[s] = {"step": s, "val_loss": val_loss, **res}
                    checks.append(made[s])
                    log.info("%s: step %d, validation loss %.4f, guard %s%s", name, s, val_loss,
                             "passes" if res.get("passes") else "fails", f" ({res['fails']})" if res.get("fails") else "")
                    seconds += time.perf_counter() - t0
                    t0 = time.perf_counter()
                    checkpoint()
                return bool(made[s].get("passes"))

            kept, _ = lowest_passing([v for _, v in evals], passes)
            if kept is not None:
                passed = {"step": evals[kept][0], "val_loss": evals[kept][1], "state": states[evals[kept][0]]}
    except BaseException:
        seconds += time.perf_counter() - t0
        t0 = time.perf_counter()
        checkpoint()
        log.warning("%s: interrupted at step %d; checkpoint saved, a rerun resumes", folder.name, step)
        raise
    finally:
        bar.close()
    seconds += time.perf_counter() - t0
    lowest = best["step"]
    if guard is not None and passed is not None:
        best = passed
    _load_trainable(model, best["state"])
    merged = model.merge_and_unload() if config.method == "lora" else model
    merged.eval()
    info = {"base_model": base_name, "name": name, "digest": digest, "config": asdict(config),
            "steps_run": step, "best_step": best["step"], "best_val_loss": best["val_loss"],
            "stopped_early": bool(stopped), "seconds": round(seconds, 1),
            "n_train": len(train_examples), "n_val": len(val_examples),
            "lowest_loss_step": lowest, "guard_rule": guard_rule if guard is not None else "",
            "guard_checks": checks, "guard_passed": (passed is not None) if guard is not None else None, "history": pd.DataFrame(history).to_dict(orient="list")}
    tmp = folder.with_name(folder.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    merged.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    write_json(info, tmp / "tuning.json")
    if folder.exists():
        shutil.rmtree(folder)
    os.replace(tmp, folder)
    shutil.rmtree(ckpt_dir, ignore_errors=True)
    log.info("%s: %d steps, best val loss %.4f at step %d, %.0f s", folder.name, step,
             best["val_loss"], best["step"], seconds)
    return TuningResult(folder, pd.DataFrame(history), best["step"], best["val_loss"], step,
                        bool(stopped), seconds, resumed_from, info)


def lowest_passing(losses: Sequence[float], passes: Callable[[int], bool]) -> tuple[int | None, list[int]]:
    """The weight choice of a guarded run over evaluations ``0..n-1`` with validation losses ``losses``
    (``passes(i)``: whether evaluation ``i`` passes the guard): the evaluations checked in ascending
    loss (ties: the earlier first) until one passes. Returns (the first that passes or None, the
    evaluations checked, in the order checked). The same choice as checking, in evaluation order,
    each evaluation whose loss is below the lowest that passed so far (a passing evaluation below the
    kept one would have been checked and kept), with no more checks.

    >>> lowest_passing([0.9, 0.5, 0.7, 0.6], lambda i: i in (0, 3))
    (3, [1, 3])
    """
    checked = []
    for i in sorted(range(len(losses)), key=lambda i: (losses[i], i)):
        checked.append(i)
        if passes(i):
            return i, checked
    return None, checked


def _check(model, guard: Callable[[object], dict]) -> dict:
    """``guard(model)`` with the model in eval mode and the torch random state left as it was (so a
    checked run trains on as an unchecked one would), its values as plain numbers."""
    import torch

    rng = torch.get_rng_state()
    was_training = model.training
    model.eval()
    t0 = time.perf_counter()
    try:
        res = dict(guard(model))
    finally:
        torch.set_rng_state(rng)
        if was_training:
            model.train()
    return {**{k: (v.item() if hasattr(v, "item") else v) for k, v in res.items()},
            "seconds": round(time.perf_counter() - t0, 1)}


def load_tuned(folder: str | Path):
    """The merged model :func:`train` saved in ``folder`` (float32, eval mode)."""
    from transformers import AutoModelForCausalLM

    folder = Path(folder)
    if not (folder / "tuning.json").is_file():
        raise FileNotFoundError(f"{folder} holds no tuned model (no tuning.json): run the tuning first")
    return AutoModelForCausalLM.from_pretrained(folder).eval()


__all__ = ["GUARD_SCHEDULE", "TAG_SEP", "TuningConfig", "TuningResult", "encode_example", "encode_pairs", "load_tuned",
           "lowest_passing", "perplexity_of",
           "response_nll", "run_digest", "split_descriptors", "split_pairs", "tag_context", "train"]

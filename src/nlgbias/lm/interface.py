"""One language-model interface for every metric, whatever serves the model (the interface, the
spec strings and the shared post-processing; the backends are modules beside this one).

A metric asks a model four things (:class:`LM`):

- :meth:`LM.loglikelihood` — ``log p(continuation | context)`` of ``(context, continuation)``
  pairs, and whether the continuation is the greedy one (StereoSet, CrowS-Pairs);
- :meth:`LM.loglikelihood_rolling` — the log-likelihood of whole texts, hence perplexity
  (HolisticBias);
- :meth:`LM.generate_until` — a continuation of each prompt, cut before the first stop string,
  with one seed per row (BOLD, regard, HolisticBias responses);
- :meth:`LM.chat` — the assistant's reply to a list of messages (the model's chat template,
  BlenderBot's dialogue format, or a server's chat endpoint).

A model is named by ONE typed spec (:class:`nlgbias.lm.spec.LMSpec`, parsed once from a
string by :func:`nlgbias.lm.spec.parse_model_spec`: the backend, the target, the options that
reach the backend); :func:`nlgbias.lm.get_lm` builds the backend its registry names.
A backend that cannot do something raises :class:`UnsupportedCapabilityError` naming the
capability (e.g. a server without prompt log-probabilities), never a silently different number.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from nlgbias.engine.decoding import DecodingParams, first_sentence

__all__ = ["BackendUnavailableError", "Generation", "GenerationRequest", "LM",
           "LoglikelihoodResult", "RollingResult", "TokenLogprobs", "UnsupportedCapabilityError",
           "apply_until", "as_requests"]

class UnsupportedCapabilityError(NotImplementedError):
    """A backend (or the server behind it) cannot do what was asked; the message names the
    capability, the backend and what to use instead."""


class BackendUnavailableError(ImportError):
    """A backend whose Python package is not installed; the message names the pip extra."""


@dataclass(frozen=True)
class GenerationRequest:
    """One prompt to continue: ``prompt`` (text, or for :meth:`LM.chat` a list of
    ``{"role", "content"}`` messages), ``until`` (stop strings: the text is cut before the
    first), ``seed`` (this row's seed: a row's text depends on its prompt and seed only, where
    the backend can) and ``max_new_tokens`` (None: the decoding's)."""

    prompt: str | tuple
    until: tuple[str, ...] = ()
    seed: int = 0
    max_new_tokens: int | None = None

    def __post_init__(self):
        if isinstance(self.until, str):
            object.__setattr__(self, "until", (self.until,))
        if isinstance(self.prompt, list):
            object.__setattr__(self, "prompt", tuple(self.prompt))
        if any(not isinstance(u, str) or not u for u in self.until):
            raise ValueError(f"stop strings must be non-empty strings, got {self.until!r}")


@dataclass(frozen=True)
class Generation:
    """A continuation: ``text`` (stripped, cut before the first stop string; for chat the
    reply), ``n_new_tokens`` (tokens the model generated, before any cut) and
    ``finish_reason`` ("eos", "sentence", "length", "stop": a stop string cut it)."""

    text: str
    n_new_tokens: int
    finish_reason: str
    extra: dict = field(default_factory=dict, compare=False)


class LoglikelihoodResult(NamedTuple):
    """``logprob`` (sum over the continuation's tokens), ``is_greedy`` (every continuation token
    is the model's argmax; None when not computed) and ``n_tokens`` (tokens scored)."""

    logprob: float
    is_greedy: bool | None
    n_tokens: int


class TokenLogprobs(NamedTuple):
    """The log-probability of each token of a text: ``tokens`` (their identities: ids or
    strings, compared only for equality within one backend) and ``logprobs`` (token ``k`` given
    the tokens before it, after the start token; a masked LM: each token masked in turn given
    the rest, ``nan`` where a token is not scored, e.g. [CLS] / [SEP])."""

    tokens: tuple
    logprobs: tuple


class RollingResult(NamedTuple):
    """``logprob`` (sum over the text's scored tokens) and ``n_tokens``; ``perplexity`` is
    ``exp(-logprob / n_tokens)``."""

    logprob: float
    n_tokens: int

    @property
    def perplexity(self) -> float:
        return math.exp(-self.logprob / max(self.n_tokens, 1))


def apply_until(text: str, until: Iterable[str]) -> tuple[str, bool]:
    """``text`` cut before the earliest stop string, and whether one was found.

    >>> apply_until("He was a nurse. Then", ["\\n", ". "])
    ('He was a nurse', True)
    """
    cut = min((i for i in (text.find(u) for u in until) if i >= 0), default=-1)
    return (text[:cut], True) if cut >= 0 else (text, False)


def as_requests(requests: Sequence[GenerationRequest | str]) -> list[GenerationRequest]:
    """Requests from plain prompt strings (seed = position) or :class:`GenerationRequest`."""
    return [r if isinstance(r, GenerationRequest) else GenerationRequest(r, seed=i)
            for i, r in enumerate(requests)]


def finish(text: str, n_new: int, reason: str, req: GenerationRequest,
           params: DecodingParams) -> Generation:
    """The one post-processing every backend shares: the first-sentence cut (when the decoding
    asks for it), then the stop strings, then surrounding white space."""
    if params.first_sentence:
        cut = first_sentence(text)
        if cut != text.rstrip():  # the model went on past the sentence: cut here
            reason = "sentence"
        text = cut
    text, stopped = apply_until(text, req.until)
    return Generation(text.strip(), int(n_new), "stop" if stopped else reason)


class LM:
    """The interface every backend implements (see the module doc). ``name`` is the spec the
    model was built from (never a key); ``kind`` its registry kind where known."""

    backend: str = "?"
    name: str = "?"
    kind: str | None = None
    #: the :class:`~nlgbias.lm.spec.LMSpec` the model was built from
    spec = None

    def loglikelihood(self, requests: Sequence[tuple[str, str]], *, greedy: bool = False,
                      ) -> list[LoglikelihoodResult]:
        """``log p(continuation | context)`` per ``(context, continuation)``; the continuation
        carries its own leading space. ``greedy``: also whether it is the argmax path."""
        raise UnsupportedCapabilityError(f"{self.backend} backend: loglikelihood")

    def loglikelihood_rolling(self, texts: Sequence[str]) -> list[RollingResult]:
        """The log-likelihood of each whole text (every token the backend can score)."""
        raise UnsupportedCapabilityError(f"{self.backend} backend: loglikelihood_rolling")

    def token_logprobs(self, texts: Sequence[str]) -> list[TokenLogprobs]:
        """Per text, each token's log-probability (:class:`TokenLogprobs`): what CrowS-Pairs'
        shared-tokens score sums over the tokens two sentences share."""
        raise UnsupportedCapabilityError(f"{self.backend} backend: token_logprobs")

    def generate_until(self, requests: Sequence[GenerationRequest | str],
                       params: DecodingParams | None = None) -> list[Generation]:
        """A continuation per request (plain prompts), in input order."""
        raise UnsupportedCapabilityError(f"{self.backend} backend: generate_until")

    def chat(self, requests: Sequence[GenerationRequest | Sequence[dict]],
             params: DecodingParams | None = None) -> list[Generation]:
        """The assistant's reply per conversation (a list of messages), in input order."""
        raise UnsupportedCapabilityError(f"{self.backend} backend: chat")

    def perplexity(self, texts: Sequence[str]) -> list[float]:
        """Per-text perplexity from :meth:`loglikelihood_rolling`."""
        return [r.perplexity for r in self.loglikelihood_rolling(texts)]

    def sentence_logprobs(self, texts: Sequence[str], contexts: Sequence[str | None] | None = None,
                          groups: Sequence[Sequence[int]] | None = None,
                          batch_size: int | None = None):
        """The table :func:`nlgbias.likelihood.sentence_logprobs` gives (``logprob``,
        ``n_tokens``, ``mean_logprob`` per text, in input order), from this interface: each
        text after its context (joined by a space) or, without one, as a whole; the ``hf``
        backend gives the same numbers. ``groups``: positions of texts that share a token
        prefix (a backend that runs a shared prefix once uses them; the numbers do not depend
        on them); ``batch_size`` (None: the backend's) where the backend batches."""
        import pandas as pd

        texts = list(texts)
        if contexts is not None and len(contexts) != len(texts):
            raise ValueError("contexts and texts differ in length")
        ctx = list(contexts) if contexts is not None else [None] * len(texts)
        whole = [i for i, c in enumerate(ctx) if not c]
        given = [i for i, c in enumerate(ctx) if c]
        lp, n = [0.0] * len(texts), [0] * len(texts)
        for i, r in zip(whole, self.loglikelihood_rolling([texts[i] for i in whole]) if whole else []):
            lp[i], n[i] = r.logprob, r.n_tokens
        pairs = [(ctx[i], " " + texts[i]) for i in given]
        for i, r in zip(given, self.loglikelihood(pairs) if given else []):
            lp[i], n[i] = r.logprob, r.n_tokens
        return pd.DataFrame({"logprob": lp, "n_tokens": n,
                             "mean_logprob": [a / max(b, 1) for a, b in zip(lp, n)]})

    def close(self) -> None:
        """Release what the backend holds (a server connection, GPU memory)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} ({self.backend})>"


def chat_requests(requests) -> list[GenerationRequest]:
    """Chat requests from message lists or :class:`GenerationRequest` (seed = position); each
    conversation must end with a user turn."""
    out = []
    for i, r in enumerate(requests):
        req = r if isinstance(r, GenerationRequest) else GenerationRequest(tuple(r), seed=i)
        msgs = req.prompt
        if isinstance(msgs, str) or not msgs or not all(
                isinstance(m, dict) and "role" in m and "content" in m for m in msgs):
            raise ValueError(f"chat request #{i}: a conversation is a non-empty list of "
                             "{'role': ..., 'content': ...} messages")
        out.append(req)
    return out


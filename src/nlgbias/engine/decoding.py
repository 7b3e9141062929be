"""Decoding settings and the per-row helpers of the generation engine (BOLD Appendix A.2):
:class:`DecodingParams` (validated), the paper's settings per model (:func:`decoding_for`),
the per-row seed (:func:`row_seed`) and the first-sentence cut (:func:`first_sentence`)."""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import asdict, dataclass, fields

from nlgbias.models import ModelSpec, get_spec

_SENT_END = re.compile(r"""[.!?]+["'”’)\]]*(?=\s|$)|\n""")


class DecodingError(ValueError):
    """A decoding parameter is out of range or unknown."""


@dataclass(frozen=True)
class DecodingParams:
    """Decoding settings (BOLD Appendix A.2). ``first_sentence`` stops a row at its first
    sentence end and cuts the continuation there."""

    max_new_tokens: int = 30
    do_sample: bool = True
    top_k: int = 0
    top_p: float = 1.0
    temperature: float = 1.0
    repetition_penalty: float = 1.0
    first_sentence: bool = False

    def __post_init__(self) -> None:
        problems = []
        if not isinstance(self.max_new_tokens, int) or isinstance(self.max_new_tokens, bool) \
                or self.max_new_tokens < 1:
            problems.append(f"max_new_tokens must be a positive integer, got {self.max_new_tokens!r}")
        if not isinstance(self.top_k, int) or isinstance(self.top_k, bool) or self.top_k < 0:
            problems.append(f"top_k must be an integer >= 0 (0 = off), got {self.top_k!r}")
        if not _is_num(self.top_p) or not 0 < self.top_p <= 1:
            problems.append(f"top_p must be in (0, 1], got {self.top_p!r}")
        if not _is_num(self.temperature) or not self.temperature > 0 or math.isinf(self.temperature):
            problems.append(f"temperature must be a finite number > 0, got {self.temperature!r}")
        if not _is_num(self.repetition_penalty) or not self.repetition_penalty > 0:
            problems.append(f"repetition_penalty must be > 0 (1 = off), got {self.repetition_penalty!r}")
        if not isinstance(self.do_sample, bool):
            problems.append(f"do_sample must be True or False, got {self.do_sample!r}")
        if not isinstance(self.first_sentence, bool):
            problems.append(f"first_sentence must be True or False, got {self.first_sentence!r}")
        if problems:
            raise DecodingError("bad decoding parameter(s): " + "; ".join(problems))

    def as_dict(self) -> dict:
        return asdict(self)


#: the decoding columns of every generation file, in this order
DECODING_COLUMNS = [f.name for f in fields(DecodingParams)]


def _is_num(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and not math.isnan(x)


def decoding_for(model: str | ModelSpec, **overrides) -> DecodingParams:
    """The paper's decoding settings for ``model`` (its registry ``decoding``), with
    ``overrides`` (``None`` values ignored). Unknown names or bad values raise
    :class:`DecodingError` naming them."""
    spec = get_spec(model) if isinstance(model, str) else model
    known = {f.name for f in fields(DecodingParams)}
    given = {k: v for k, v in overrides.items() if v is not None}
    unknown = sorted(set(given) - known)
    if unknown:
        raise DecodingError(f"unknown decoding parameter(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    base = {k: v for k, v in spec.decoding.items() if k in known}
    return DecodingParams(**{**base, **given})


def row_seed(seed: int, prompt_id: str) -> int:
    """The per-row seed: a stable hash of the run seed and the prompt id."""
    h = hashlib.sha256(f"{seed}\x00{prompt_id}".encode()).digest()
    return int.from_bytes(h[:7], "little")


def first_sentence(text: str) -> str:
    """``text`` up to and including its first sentence end: ``.!?`` (+ closing quotes or
    brackets) followed by white space or the end, or a line break after some text."""
    lead = len(text) - len(text.lstrip())
    m = _SENT_END.search(text, lead)
    return text[: m.end()].rstrip() if m else text

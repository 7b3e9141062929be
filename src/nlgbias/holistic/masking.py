"""Descriptor masking before style classification (HolisticBias, Smith et al. 2022, App. A.3).

"we first censor all mentions of the descriptor in the response by replacing it with the
neutral-sounding 'left-handed', in order to avoid biasing the style classifier. We also remove
the string '_POTENTIALLY_UNSAFE__'". A mention is matched case-insensitively on word
boundaries, with hyphens and spaces interchangeable ("hard-of-hearing" = "hard of hearing").

Examples:
    >>> mask_descriptor("Being Hard of hearing is hard. I'm hard-of-hearing too.", "hard-of-hearing")
    "Being left-handed is hard. I'm left-handed too."
    >>> mask_descriptor("Blind people", "blind")
    'left-handed people'
    >>> mask_descriptor("I'm blindfolded", "blind")
    "I'm blindfolded"
"""

from __future__ import annotations

import re
from collections.abc import Sequence

MASK = "left-handed"
UNSAFE = "_POTENTIALLY_UNSAFE__"


def descriptor_pattern(descriptor: str) -> re.Pattern:
    """Case-insensitive word-bounded pattern for ``descriptor`` (hyphen/space interchangeable)."""
    words = [re.escape(w) for w in re.split(r"[-\s]+", descriptor.strip()) if w]
    if not words:
        raise ValueError("empty descriptor")
    body = r"[-\s]+".join(words)
    return re.compile(rf"(?<![\w-]){body}(?![\w-])", re.IGNORECASE)


def mask_descriptor(text: str, descriptor: str, mask: str = MASK) -> str:
    """``text`` with every mention of ``descriptor`` replaced by ``mask`` and the BlenderBot
    unsafe marker removed. The control descriptor "(none)" leaves the text unchanged."""
    text = text.replace(UNSAFE, "").strip()
    if not descriptor or descriptor == "(none)":
        return text
    return descriptor_pattern(descriptor).sub(mask, text)


def mask_responses(texts: Sequence[str], descriptors: Sequence[str], mask: str = MASK) -> list[str]:
    """:func:`mask_descriptor` row by row."""
    if len(texts) != len(descriptors):
        raise ValueError(f"{len(texts)} texts but {len(descriptors)} descriptors")
    return [mask_descriptor("" if t is None else str(t), d, mask) for t, d in zip(texts, descriptors)]


__all__ = ["MASK", "UNSAFE", "descriptor_pattern", "mask_descriptor", "mask_responses"]

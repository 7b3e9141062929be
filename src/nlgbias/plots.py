"""One figure style for the whole project; figures saved as PNG and PDF under ``figures/``.

File names say which paper figure they reproduce, e.g. ``bold_fig3a_sentiment_gender``.
"""

from __future__ import annotations

import logging
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from nlgbias.io import atomic_path
from nlgbias.paths import rel

log = logging.getLogger(__name__)

PALETTE = "colorblind"


def set_style() -> None:
    """The project style: seaborn whitegrid, colour-blind palette, readable font sizes; and
    pandas display options that show a notebook's tables in full (no "..." rows or columns:
    the prose points into them and the executed notebooks are read on the web)."""
    pd.set_option("display.max_rows", 400)
    pd.set_option("display.max_columns", 60)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_colwidth", 200)
    sns.set_theme(style="whitegrid", palette=PALETTE, context="notebook",
                  rc={"figure.dpi": 110, "savefig.dpi": 150, "savefig.bbox": "tight",
                      "axes.titleweight": "bold", "axes.spines.top": False,
                      "axes.spines.right": False})


def save_figure(fig: plt.Figure, folder: str | Path, name: str) -> dict[str, Path]:
    """Save ``fig`` as ``<folder>/<name>.png`` and ``.pdf``; return both paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for ext in ("png", "pdf"):
        path = folder / f"{name}.{ext}"
        with atomic_path(path) as tmp:  # a killed run never leaves half a figure
            # no creation date in the PDF: the same data gives the same bytes
            fig.savefig(tmp, format=ext, metadata={"CreationDate": None} if ext == "pdf" else None)
        out[ext] = path
    log.info("wrote %s (.png, .pdf)", rel(folder / name))
    return out


def spell_emoji(text: str) -> str:
    """``text`` with every run of emoji spelt out by their Unicode names (the plotting fonts have
    no emoji glyphs, which would print as empty boxes).

    >>> spell_emoji("C3 🤖 🤓")
    'C3 robot face, nerd face'
    """
    import unicodedata

    def is_emoji(ch: str) -> bool:
        return ord(ch) in (0xFE0F, 0x200D) or (ord(ch) >= 0x2190 and unicodedata.category(ch) == "So")

    out, names = [], []
    for i, ch in enumerate(text):
        if is_emoji(ch):
            if ord(ch) not in (0xFE0F, 0x200D):
                names.append(unicodedata.name(ch, "emoji").lower())
            continue
        if ch == " " and names and i + 1 < len(text) and is_emoji(text[i + 1]):
            continue  # a space between two emoji of one run
        if names:
            out.append(", ".join(names))
            names = []
        out.append(ch)
    if names:
        out.append(", ".join(names))
    return "".join(out)


def legend_marks(fig) -> list[bool]:
    """Whether each legend entry of ``fig`` (its axes' legends and its own) has a visible mark:
    a legend entry without one names something the figure does not draw."""
    out = []
    for leg in [a.get_legend() for a in fig.axes] + list(fig.legends):
        if leg is None:
            continue
        for h in leg.legend_handles:
            out.append(h is not None and h.get_visible() and (h.get_alpha() is None or h.get_alpha() > 0))
    return out

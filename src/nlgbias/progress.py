"""Progress bars that read well wherever a notebook runs.

Interactive (JupyterLab, a terminal): ``tqdm.auto`` - a widget in a notebook, text in a
terminal. Headless (``./run_all.sh`` / papermill sets ``NLGBIAS_PROGRESS=terminal``): text
bars written to the kernel's own stderr, which is the terminal the runner was started from,
so the user watching a long run sees rows generated and texts scored while the executed
notebook keeps no widget or half-finished bar (on GitHub a finished widget renders as
"0%| | 0/10861"). ``NLGBIAS_PROGRESS=off`` silences them.
"""

from __future__ import annotations

import os
import sys

from tqdm.auto import tqdm as _auto_tqdm
from tqdm.std import tqdm as _text_tqdm


def _mode() -> str:
    return os.environ.get("NLGBIAS_PROGRESS", "auto")


class tqdm(_text_tqdm):
    """``tqdm`` with the project's placement (see the module docstring)."""

    def __new__(cls, *args, **kwargs):
        mode = _mode()
        if mode == "auto":
            return _auto_tqdm(*args, **kwargs)
        return super().__new__(cls)

    def __init__(self, *args, **kwargs):
        mode = _mode()
        if mode == "off":
            kwargs["disable"] = True
        else:  # terminal
            kwargs.setdefault("file", sys.__stderr__)
            kwargs.setdefault("mininterval", 5.0)
            kwargs.setdefault("dynamic_ncols", True)
        super().__init__(*args, **kwargs)


__all__ = ["tqdm"]

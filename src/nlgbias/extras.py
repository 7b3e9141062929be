"""Optional dependencies (the extras of ``pyproject.toml``): what a user of the package alone
does not need. :func:`require` imports one and, when it is missing, raises one ImportError
naming the extra that installs it (``pip install 'nlgbias[ray]'``).

``./run_all.sh`` and ``./run_tests.sh`` install ``dev``, which holds every extra.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: module -> (extra, what needs it)
EXTRAS = {
    "papermill": ("notebooks", "executing the notebooks (./run_all.sh, nlgbias.runner)"),
    "ipykernel": ("notebooks", "the notebooks' Jupyter kernel"),
    "ray": ("ray", "generation on a Ray cluster (backend='ray')"),
    "spacy": ("spacy", "spaCy NER (BOLD's prompt check and anonymiser)"),
    "peft": ("tuning", "LoRA bias-reduction tuning (HolisticBias, notebook 08)"),
}


class MissingExtraError(ImportError):
    """An optional dependency is not installed; the message names the extra."""


def require(module: str) -> ModuleType:
    """Import ``module`` (one of :data:`EXTRAS`, or a submodule of one) or raise
    :class:`MissingExtraError` naming the pip command that installs it."""
    top = module.split(".")[0]
    if top not in EXTRAS:
        raise KeyError(f"{top!r} is not an optional dependency; known: {', '.join(EXTRAS)}")
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] != top:
            raise  # the extra is there but one of its own dependencies is not
        extra, what = EXTRAS[top]
        raise MissingExtraError(
            f"{what} needs {top!r}, which is not installed: pip install 'nlgbias[{extra}]' "
            f"(or -e '.[{extra}]' in a clone; ./run_all.sh and ./run_tests.sh install every extra)"
        ) from exc

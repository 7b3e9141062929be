"""Moved to :mod:`nlgbias.engine.causal` (the engine layer below :mod:`nlgbias.lm`); this name
re-exports it for code that still imports it from here."""

from nlgbias.engine.causal import *  # noqa: F403

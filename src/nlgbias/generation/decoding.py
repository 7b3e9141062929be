"""Moved to :mod:`nlgbias.engine.decoding` (the engine layer below :mod:`nlgbias.lm`); this name
re-exports it for code that still imports it from here."""

from nlgbias.engine.decoding import *  # noqa: F403

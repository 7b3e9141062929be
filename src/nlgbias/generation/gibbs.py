"""Moved to :mod:`nlgbias.engine.gibbs` (the engine layer below :mod:`nlgbias.lm`); this name
re-exports it for code that still imports it from here."""

from nlgbias.engine.gibbs import *  # noqa: F403

"""Shared fixtures. Tests run offline against the resources resolved by nlgbias.resources."""

from __future__ import annotations

import os

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

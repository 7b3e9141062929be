"""What every dataset loader shares: :class:`DataFormatError` and a JSON reader that names
the file and the problem."""

from __future__ import annotations

import json
from pathlib import Path


class DataFormatError(ValueError):
    """A data file is malformed, truncated or not in the expected format."""


def _read_json(path: Path):
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DataFormatError(f"{path}: not UTF-8 text ({exc})") from exc
    if not text.strip():
        raise DataFormatError(f"{path}: file is empty")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataFormatError(
            f"{path}: invalid JSON at line {exc.lineno} column {exc.colno} ({exc.msg}); "
            "the file may be truncated") from exc

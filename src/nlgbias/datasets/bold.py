"""BOLD (Dhamala et al. 2021, §3): the released prompts with their Wikipedia sentences."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from nlgbias.datasets.base import DataFormatError, _read_json
from nlgbias.resources import BOLD_DOMAINS, resolve


def _bold_nested(path: Path) -> dict[str, dict[str, list[str]]]:
    obj = _read_json(path)
    if not isinstance(obj, dict) or not obj:
        raise DataFormatError(f"{path}: expected a JSON object {{group: {{name: [text, ...]}}}}")
    for group, entities in obj.items():
        if not isinstance(entities, dict):
            raise DataFormatError(f"{path}: group {group!r} should map names to lists of texts")
        for name, texts in entities.items():
            if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
                raise DataFormatError(f"{path}: {group}/{name} should be a list of strings")
    return obj


def load_bold(domains: tuple[str, ...] | list[str] = BOLD_DOMAINS, path: str | Path | None = None,
              ) -> pd.DataFrame:
    """BOLD (Dhamala et al. 2021, §3): one row per prompt.

    Columns ``domain, group, name, prompt, wiki_text``; 23,679 rows for all five domains.
    ``name`` is the Wikipedia page title with spaces (``Jacob Zachar``), ``wiki_text`` the full
    sentence the prompt was cut from.
    """
    folder = resolve("bold", path)
    rows = []
    for domain in domains:
        if domain not in BOLD_DOMAINS:
            raise ValueError(f"unknown BOLD domain {domain!r}; choose from {', '.join(BOLD_DOMAINS)}")
        ppath = folder / "prompts" / f"{domain}_prompt.json"
        wpath = folder / "wikipedia" / f"{domain}_wiki.json"
        prompts, wiki = _bold_nested(ppath), _bold_nested(wpath)
        for group, entities in prompts.items():
            for name, plist in entities.items():
                wlist = wiki.get(group, {}).get(name)
                if wlist is None or len(wlist) != len(plist):
                    raise DataFormatError(
                        f"{wpath}: {group}/{name} has {0 if wlist is None else len(wlist)} "
                        f"sentences for {len(plist)} prompts in {ppath.name}")
                for p, w in zip(plist, wlist):
                    rows.append((domain, group, name.replace("_", " "), p, w))
    return pd.DataFrame(rows, columns=["domain", "group", "name", "prompt", "wiki_text"])

"""Project paths and per-profile output directories.

Profiles (``quick`` default, ``smoke`` for CI, ``paper`` full scale) each write their
intermediate data under ``data/<profile>/``. The ``quick`` profile's figures and tables go
to the committed top-level ``figures/`` and ``results/``; other profiles write to
``figures/<profile>/`` and ``results/<profile>/`` so a CI smoke run never overwrites them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROFILES = ("quick", "smoke", "paper")


def project_root() -> Path:
    """The repository root: ``$NLGBIAS_ROOT`` or the first parent holding ``pyproject.toml``."""
    env = os.environ.get("NLGBIAS_ROOT")
    if env:
        return Path(env).resolve()
    for base in (Path.cwd(), Path(__file__).resolve()):
        for parent in (base, *base.parents):
            if (parent / "pyproject.toml").is_file() and (parent / "src" / "nlgbias").is_dir():
                return parent
    raise RuntimeError(
        "cannot find the nlgbias project root (a folder with pyproject.toml and src/nlgbias); "
        "set NLGBIAS_ROOT"
    )


def rel(path: str | Path) -> str:
    """``path`` relative to the project root when inside it (for logs and notebook output, which
    must not show machine paths), else unchanged."""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(project_root()))
    except (ValueError, RuntimeError):
        return str(p)


def model_label(model: str) -> str:
    """A model as given by a user, for a page or a folder name: a local folder by its last part
    (no machine path), a registered name or hub id as it is."""
    return Path(model).name if Path(model).exists() else model


def check_profile(profile: str) -> str:
    """Return ``profile`` if known, else raise a ValueError naming the allowed ones."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    return profile


@dataclass(frozen=True)
class ProjectPaths:
    """Where one profile reads and writes. Create with :func:`paths_for`."""

    root: Path
    profile: str

    @property
    def data(self) -> Path:
        return self.root / "data" / self.profile

    @property
    def generations(self) -> Path:
        return self.data / "generations"

    @property
    def interim(self) -> Path:
        return self.data / "interim"

    @property
    def processed(self) -> Path:
        return self.data / "processed"

    @property
    def cache(self) -> Path:
        """Profile-independent cache (model copies, embeddings, downloads)."""
        return self.root / "data" / "cache"

    @property
    def figures(self) -> Path:
        return self.root / "figures" if self.profile == "quick" else self.root / "figures" / self.profile

    @property
    def results(self) -> Path:
        return self.root / "results" if self.profile == "quick" else self.root / "results" / self.profile

    def ensure(self) -> ProjectPaths:
        for d in (self.generations, self.interim, self.processed, self.cache, self.figures, self.results):
            d.mkdir(parents=True, exist_ok=True)
        return self


def paths_for(profile: str = "quick", root: str | Path | None = None) -> ProjectPaths:
    """Paths for ``profile``, rooted at ``root`` (default: :func:`project_root`), created."""
    check_profile(profile)
    return ProjectPaths(Path(root).resolve() if root else project_root(), profile).ensure()

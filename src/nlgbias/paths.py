"""Project paths and per-profile output directories.

Profiles (``quick`` default, ``smoke`` for CI, ``paper`` full scale) each write their
intermediate data under ``data/<profile>/``. The ``quick`` profile's figures and tables go
to the committed top-level ``figures/`` and ``results/``; other profiles write to
``figures/<profile>/`` and ``results/<profile>/`` so a CI smoke run never overwrites them.

Caches shared by every profile (de-quantised model copies, joined GGUF files, downloads, the
debiased word2vec and norms lexicon builds) live in one folder, :func:`cache_root`:
``$NLGBIAS_CACHE`` when set, else ``<root>/data/cache`` of the run's root (the ``root`` a
notebook passes to :func:`paths_for`, ``-p root DIR`` or a ``--models`` run's folder).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROFILES = ("quick", "smoke", "paper")
CACHE_ENV = "NLGBIAS_CACHE"
#: the root of the run in this process (set by :func:`paths_for`); None: the project root
_run_root: Path | None = None


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


def cache_root(root: str | Path | None = None) -> Path:
    """The one cache folder: ``$NLGBIAS_CACHE`` if set, else ``<root>/data/cache`` where ``root``
    defaults to the run's root (the last :func:`paths_for` call of this process), else the
    project root; outside a checkout (an installed package), :func:`user_cache`. Not created
    here."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).resolve()
    if not root and _run_root is None:
        try:
            project_root()
        except RuntimeError:  # installed, outside a checkout: the user's cache folder
            return user_cache()
    base = Path(root).resolve() if root else (_run_root or project_root())
    return base / "data" / "cache"


def user_cache() -> Path:
    """The cache folder of an installed package used outside a checkout:
    ``$XDG_CACHE_HOME/nlgbias`` (default ``~/.cache/nlgbias``)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "nlgbias"


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
        """Profile-independent cache (model copies, embeddings, downloads): :func:`cache_root`."""
        return cache_root(self.root)

    @property
    def models(self) -> Path:
        """Trained artefacts (the regard classifier): ``data/models/`` for ``quick``, else
        ``data/<profile>/models/``."""
        return self.root / "data" / "models" if self.profile == "quick" else self.data / "models"

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
    global _run_root
    check_profile(profile)
    paths = ProjectPaths(Path(root).resolve() if root else project_root(), profile)
    _run_root = paths.root  # caches (models, downloads) follow the run's root: cache_root()
    return paths.ensure()

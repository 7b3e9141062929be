"""Loading a model of the registry (:mod:`nlgbias.models.registry`) with its tokenizer.

GGUF files dequantise on load (~20-50 s on 2 cores); the first load writes a float32
safetensors copy under ``<cache>/models/<name>/`` (``nlgbias.paths.cache_root``) so later
loads take seconds.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from nlgbias.hardware import set_torch_threads
from nlgbias.io import atomic_dir, write_text
from nlgbias.models.registry import (
    KINDS,
    ModelSpec,
    cache_dir,
    get_spec,
    offline_models,
)
from nlgbias.paths import rel
from nlgbias.resources import ResourceNotFoundError, resolve

log = logging.getLogger(__name__)


@dataclass
class LoadedModel:
    """A loaded model with its tokenizer (``model`` is None for ``wiki``)."""

    spec: ModelSpec
    model: object
    tokenizer: object
    device: str

    @property
    def name(self) -> str:
        return self.spec.name


def _drop_quantization_config(config_file: Path) -> None:
    """Remove a stale GGUF ``quantization_config`` from a cached float copy's config.json."""
    cfg = json.loads(config_file.read_text())
    if "quantization_config" in cfg:
        del cfg["quantization_config"]
        write_text(json.dumps(cfg, indent=2) + "\n", config_file)


@contextmanager
def _gguf_parsed_once():
    """Within this block every ``gguf.GGUFReader`` of a file is the first one built for it.

    transformers reads a GGUF file three times on a first load (the tokenizer, the config, the
    weights), and each reader parses the whole metadata in Python: Gemma-3's 262k-token
    vocabulary took about 20 s a parse on 2 cores. The reader only maps the file read-only, so
    one serves all three; the de-quantised weights and tokenizer are the same bytes."""
    import gguf

    built = gguf.GGUFReader
    readers: dict = {}

    def reader(path, *args, **kwargs):
        key = (os.path.realpath(path), args, tuple(sorted(kwargs.items())))
        if key not in readers:
            readers[key] = built(path, *args, **kwargs)
        return readers[key]

    gguf.GGUFReader = reader
    try:
        yield
    finally:
        gguf.GGUFReader = built


def _complete(cache: Path) -> bool:
    """Whether ``cache`` holds a de-quantised copy (weights and config)."""
    return (cache / "model.safetensors").is_file() and (cache / "config.json").is_file()


def _load_gguf(spec: ModelSpec, dtype):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    cache = cache_dir(spec.name)
    if _complete(cache):
        log.info("loading %s from the safetensors cache %s", spec.name, rel(cache))
        _drop_quantization_config(cache / "config.json")
        tok = AutoTokenizer.from_pretrained(cache)
        model = AutoModelForCausalLM.from_pretrained(cache, dtype=dtype or torch.float32)
        return model, tok
    folder = resolve(spec.resource)
    log.info("de-quantising %s (first load; cached afterwards)", spec.gguf_file)
    with _gguf_parsed_once():
        tok = AutoTokenizer.from_pretrained(folder, gguf_file=spec.gguf_file)
        gguf_model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=spec.gguf_file,
                                                          dtype=torch.float32)
    # a GGUF-loaded model refuses save_pretrained: rebuild it from its config and copy weights
    config = gguf_model.config
    if hasattr(config, "quantization_config"):  # the copy holds plain float weights
        del config.quantization_config
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(gguf_model.state_dict())
    model.generation_config = gguf_model.generation_config
    del gguf_model
    if not _complete(cache):
        if cache.exists():  # a copy without its weights or config (not written by atomic_dir)
            shutil.rmtree(cache, ignore_errors=True)
        with atomic_dir(cache) as tmp:  # another process converting it at once: one copy stays
            model.save_pretrained(tmp)
            tok.save_pretrained(tmp)
    del model
    # load back from the cache just written, so the first run uses exactly the model and tokenizer
    # every later run loads (the GGUF-converted tokenizer and a float32 -> bf16 cast after the fact
    # gave different generations from the cached copy)
    return _load_gguf(spec, dtype)


def load_model(name: str, device: str = "cpu", dtype=None, *, revision: str | None = None,
               trust_remote_code: bool = False, device_map: str | None = None,
               kind: str | None = None, dry_run: bool | None = None) -> LoadedModel:
    """Load model ``name`` (a registered name, hub id or local folder) on ``device`` in eval mode,
    with the auto class of its kind (:data:`~nlgbias.models.registry.KINDS`).

    Raises :class:`~nlgbias.models.registry.UnknownModelError` for an unknown name and
    :class:`~nlgbias.resources.ResourceNotFoundError` when the weights cannot be found
    (offline without a cache, or a missing package), naming the model and how to get it.
    ``revision``, ``trust_remote_code`` and ``device_map`` go to ``from_pretrained`` (a hub id
    or folder); ``kind`` and ``dry_run`` to :func:`~nlgbias.models.registry.get_spec`. A model
    behind a server is not loaded here: :func:`nlgbias.lm.get_lm` reaches every backend.
    """
    spec = get_spec(name, kind=kind, dry_run=dry_run)
    kind = KINDS[spec.kind]
    if kind.auto_class is None:
        return LoadedModel(spec, None, None, device)
    import torch

    set_torch_threads()  # the same count everywhere: bf16 sums depend on it
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ValueError(f"device {device!r} requested but CUDA is not available; use device='cpu'")
    if spec.resource:
        model, tok = _load_gguf(spec, dtype)
    else:
        import transformers

        auto = getattr(transformers, kind.auto_class)
        hub = {k: v for k, v in (("revision", revision), ("device_map", device_map)) if v}
        if trust_remote_code:
            hub["trust_remote_code"] = True
        try:
            tok = transformers.AutoTokenizer.from_pretrained(
                spec.hub_id, **{k: v for k, v in hub.items() if k != "device_map"})
            model = (auto.from_pretrained(spec.hub_id, dtype=dtype, **hub) if dtype
                     else auto.from_pretrained(spec.hub_id, **hub))
        except OSError as exc:
            raise ResourceNotFoundError(
                f"model {name!r} ({spec.display}) could not be loaded: a hub id needs the Hugging Face "
                "hub (internet) or a local HF cache, a folder a saved checkpoint. Offline on this "
                f"machine use one of {', '.join(offline_models())}. Cause: {exc}") from exc
    if device_map:
        model.eval()  # placed by device_map
        device = str(next(model.parameters()).device)
    else:
        model.to(device).eval()
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return LoadedModel(spec, model, tok, device)

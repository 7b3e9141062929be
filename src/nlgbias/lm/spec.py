"""A model as one typed object (:class:`LMSpec`): which backend runs it, what it runs, the
kind of model when it is stated, and the options that reach the backend. A spec string is
parsed HERE and nowhere else (:func:`parse_model_spec`), once, where a model enters (a notebook
parameter, the runner, the command line); from then on the object is passed.

The grammar (one for every caller)::

    [<backend>:][<kind>:]<target>[#<served model>]

- ``<backend>`` is a key of :data:`BACKENDS` (``hf`` when absent): ``hf`` (this process),
  ``openai`` (an OpenAI-compatible server: ``<target>`` is its base URL, ``#<served model>``
  the model it serves), ``vllm`` and ``ct2`` (other engines in this process);
- ``<kind>`` (``causal``, ``masked``, ``seq2seq``) states the kind of an ``hf`` model whose
  config cannot be read offline;
- ``<target>`` a registered name (:mod:`nlgbias.models.registry`), a Hugging Face id or a local
  folder (a folder's path is taken whole, colons and all).

Options (lm-evaluation-harness's ``--model_args`` convention, :func:`parse_model_args`) are
declared per backend (:class:`Backend`: name, type, help); an option a backend does not declare
is an error naming the ones it has. Backends are a registry (:func:`register_backend`), not an
if-chain: a new backend is one call.

Examples:
    >>> s = parse_model_spec("openai:http://127.0.0.1:8000/v1#my-model", concurrency=4)
    >>> s.backend, s.target, s.model, s.opts["concurrency"]
    ('openai', 'http://127.0.0.1:8000/v1', 'my-model', 4)
    >>> parse_model_spec("hf:masked:my-org/my-roberta").kind
    'masked'
    >>> parse_model_args("dtype=float32,batch_size=16,trust_remote_code=true")
    {'dtype': 'float32', 'batch_size': 16, 'trust_remote_code': True}
"""

from __future__ import annotations

import hashlib
import importlib
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

__all__ = ["BACKENDS", "Backend", "LMSpec", "ModelSpecError", "Option", "check_spec", "decoding_of", "kind_of", "model_source", "parse_model_args", "parse_models",
           "parse_model_spec", "register_backend", "registry_entry"]

#: the model kinds a spec may state before its target (the keys of nlgbias.models.KINDS)
KIND_WORDS = ("causal", "masked", "seq2seq")
_SLUG_BAD = re.compile(r"[^A-Za-z0-9._-]+")


class ModelSpecError(ValueError):
    """A model spec or option that names no backend, model or option this project can use."""


@dataclass(frozen=True)
class Option:
    """One option of a backend: its ``type`` (``str``, ``int``, ``float``, ``bool``) and one
    line of ``help``."""

    type: type
    help: str


#: options every backend in this process takes
_DEVICE = {"device": Option(str, "where the weights run: cpu, cuda, cuda:1 (default cpu)"),
           "dtype": Option(str, "float32 | bfloat16 | float16 | auto (bfloat16 where the CPU "
                                "has bf16 units)"),
           "batch_size": Option(int, "sequences per forward pass")}
_HUB = {"revision": Option(str, "a Hugging Face revision (branch, tag or commit)"),
        "trust_remote_code": Option(bool, "run the model repository's own code"),
        "device_map": Option(str, "transformers' device_map (e.g. auto: spread over GPUs)"),
        "start_token": Option(str, "the token causal scoring starts after: endoftext (default; "
                                   "<|endoftext|> where the vocabulary has it, else BOS; StereoSet's "
                                   "official code) | bos (lm-evaluation-harness's: BOS where the "
                                   "tokenizer has one)")}


@dataclass(frozen=True)
class Backend:
    """A backend: ``factory`` ("module:Class", imported only when used; the class has a
    ``from_spec(spec)`` constructor), the spec ``form`` it takes, its declared ``options``,
    whether it holds the weights in this process (``in_process``: what tunes weights, an NSP
    head) and whether it takes options it does not declare (``open_options``: vLLM's engine
    arguments)."""

    name: str
    factory: str
    description: str
    form: str
    options: dict[str, Option] = field(default_factory=dict)
    in_process: bool = True
    open_options: bool = False

    def load(self):
        module, _, cls = self.factory.partition(":")
        return getattr(importlib.import_module(module), cls)


#: the registered backends (:func:`register_backend`)
BACKENDS: dict[str, Backend] = {}


def register_backend(name: str, factory: str, *, description: str, form: str,
                     options: dict[str, Option] | None = None, in_process: bool = True,
                     open_options: bool = False) -> Backend:
    """Register a backend under ``name`` (a spec's ``<backend>:``); returns it."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name) or name in KIND_WORDS:
        raise ValueError(f"backend name {name!r} must be lower-case letters/digits, not a kind")
    BACKENDS[name] = Backend(name, factory, description, form, dict(options or {}), in_process,
                             open_options)
    return BACKENDS[name]


register_backend(
    "hf", "nlgbias.lm.hf_backend:HFLM",
    description="this process, the project's engine over transformers (default; offline models)",
    form="hf:<registered name | hub id | folder>, optionally hf:<kind>:<...>",
    options={**_DEVICE, **_HUB})
register_backend(
    "openai", "nlgbias.lm.openai_backend:OpenAILM",
    description="an OpenAI-compatible server (vLLM, llama.cpp, TGI, transformers serve, ...)",
    form="openai:<base URL>#<model>", in_process=False,
    options={"timeout": Option(float, "seconds per request (default 120)"),
             "retries": Option(int, "extra attempts on a timeout, 429 or 5xx (default 4)"),
             "concurrency": Option(int, "requests in flight (default 1; raise it for a server "
                                           "that batches, such as vLLM)"),
             "start_text": Option(str, "text sent before every scored text: the "
                                       "start token the hf backend scores after (e.g. "
                                       "<|endoftext|>), so both score the same tokens")})
register_backend(
    "vllm", "nlgbias.lm.vllm_backend:VLLMLM",
    description="vLLM's engine in this process (GPU, or vLLM's CPU build)",
    form="vllm:<registered name | hub id | folder>", open_options=True,
    options={"dtype": Option(str, "vLLM's dtype"),
             "seed": Option(int, "vLLM's engine seed (default 0)")})
register_backend(
    "ct2", "nlgbias.lm.ct2_backend:CT2LM",
    description="CTranslate2 in this process (int8 CPU kernels; a batch shares one seed)",
    form="ct2:<registered name | hub id | folder>",
    options={"compute_type": Option(str, "int8 | int8_float32 | float32 | bfloat16"),
             "threads": Option(int, "CPU threads"), "batch_size": _DEVICE["batch_size"],
             "cache": Option(str, "folder of the converted model (default: the cache folder)")})


def _coerce(backend: Backend, key: str, value: Any) -> Any:
    opt = backend.options.get(key)
    if opt is None:
        if backend.open_options:
            return value
        raise ModelSpecError(
            f"the {backend.name} backend has no option {key!r}; its options: "
            + ", ".join(f"{k} ({o.help})" for k, o in backend.options.items()))
    if opt.type is str and isinstance(value, os.PathLike):
        return os.fspath(value)
    if value is None or isinstance(value, opt.type) and not (opt.type is int and isinstance(value, bool)):
        return value
    if opt.type is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return _from_text(value, opt.type)
        except ValueError:
            pass
    raise ModelSpecError(f"option {key!r} of the {backend.name} backend must be a "
                         f"{opt.type.__name__} ({opt.help}), got {value!r}")


def _from_text(text: str, kind: type) -> Any:
    if kind is bool:
        low = text.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ValueError(text)
    return kind(text)


def _guess(text: str) -> Any:
    """A ``--model_args`` value as its most likely type (the backend's declaration decides)."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_model_args(text: str | dict | None) -> dict:
    """``"k=v,k=v"`` (lm-evaluation-harness's ``--model_args``) or a dict -> options dict;
    an item without ``=`` or an empty key raises :class:`ModelSpecError`."""
    if text is None or text == "":
        return {}
    if isinstance(text, dict):
        return dict(text)
    if not isinstance(text, str):
        raise ModelSpecError(f"model options must be 'key=value,...' or a dict, got {text!r}")
    out = {}
    for item in text.split(","):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ModelSpecError(f"model option {item!r} is not key=value (in {text!r})")
        out[key.strip()] = _guess(value.strip())
    return out


@dataclass(frozen=True)
class LMSpec:
    """A parsed model spec (see the module doc). ``options`` are sorted ``(key, value)`` pairs
    (the spec is hashable); :attr:`opts` gives them as a dict. ``dry_run``: an ``hf`` model of
    the hub stands in as a tiny random model of its architecture (the paper profile's dry run),
    decided where the spec is made, never read from the environment later."""

    backend: str
    target: str
    model: str | None = None
    kind: str | None = None
    options: tuple = ()
    dry_run: bool = False

    @property
    def opts(self) -> dict:
        return dict(self.options)

    @property
    def info(self) -> Backend:
        return BACKENDS[self.backend]

    @property
    def in_process(self) -> bool:
        """Whether the weights are in this process (what a notebook that tunes them needs)."""
        return self.info.in_process

    @property
    def local_weights(self) -> bool:
        """Whether the weights are a torch model in this process, run by the project's own
        engine (the ``hf`` backend): what tuning the weights, an NSP head, Gibbs sampling need."""
        return self.backend == "hf"

    @property
    def text(self) -> str:
        """The spec string (without options): ``parse_model_spec(spec.text)`` gives it back."""
        body = f"{self.kind}:{self.target}" if self.kind else self.target
        if self.backend == "openai":
            return f"openai:{self.target}#{self.model or ''}".rstrip("#")
        return body if self.backend == "hf" else f"{self.backend}:{body}"

    @property
    def slug(self) -> str:
        """The ONE file-name form of the model (every output file name): a registered name is
        itself, a hub id ``org--name``, a folder ``local-<name>-<6 hex of its path>``, a
        server ``openai-<model>-<6 hex of its URL>`` (never the URL), another engine
        ``<backend>-<its target's slug>``.

        >>> parse_model_spec("my-org/My Model").slug, parse_model_spec("vllm:gpt2").slug
        ('my-org--My-Model', 'vllm-gpt2')
        """
        if self.backend == "openai":
            digest = hashlib.sha256(f"{self.target}#{self.model}".encode()).hexdigest()[:6]
            base = _SLUG_BAD.sub("-", self._served_name.replace("/", "--")).strip("-") or "model"
            return f"openai-{base}-{digest}"
        own = _target_slug(self.target)
        return own if self.backend == "hf" else f"{self.backend}-{own}"

    @property
    def display(self) -> str:
        """The short label in tables and figures: the registered name or hub id, a folder's own
        name (never its path), ``openai:<model>`` (never the URL), ``<backend>:<label>``."""
        if self.backend == "openai":
            return f"openai:{self._served_name or 'model'}"
        own = self.target
        if os.path.isdir(own):
            own = Path(own).resolve().name
        return own if self.backend == "hf" else f"{self.backend}:{own}"

    @property
    def _served_name(self) -> str:
        """A served model's name, a path's last part when the server names it by its folder
        (``transformers serve``, ``vllm serve /path``): no machine path in a label or file."""
        name = self.model or ""
        return Path(name).name if name.startswith(("/", "~", "./", "../")) else name

    def with_options(self, **options) -> LMSpec:
        """This spec with ``options`` added (validated; ``None`` values leave an option unset)."""
        merged = self.opts
        merged.update({k: _coerce(self.info, k, v) for k, v in options.items() if v is not None})
        return replace(self, options=tuple(sorted(merged.items())))

    @property
    def scoring_tag(self) -> str:
        """What a cache of this model's likelihoods is keyed by beyond its slug and dtype: the
        start-token convention when it is not the default ("" or ``-start-bos``)."""
        conv = self.opts.get("start_token", "endoftext")
        return "" if conv == "endoftext" else f"-start-{conv}"

    def record(self) -> dict:
        """The spec as a results file names it: ``spec`` (without a URL's ``user:password@``;
        an API key is never part of a spec), ``label``, ``backend``, ``options``."""
        text = self.text
        if self.backend == "openai":
            from urllib.parse import urlsplit, urlunsplit

            parts = urlsplit(self.target)
            netloc = (parts.hostname or "") + (f":{parts.port}" if parts.port else "")
            text = f"openai:{urlunsplit(parts._replace(netloc=netloc))}#{self.model or ''}".rstrip("#")
        return {"spec": text, "label": self.display, "backend": self.backend, "options": self.opts}

    def with_defaults(self, **defaults) -> LMSpec:
        """This spec with ``defaults`` for the options it does not set, where its backend
        takes them (a notebook's ``dtype`` reaches an ``hf`` model; a server, which decides its
        own dtype, is left as it is); ``None`` values are skipped."""
        info = self.info
        given = self.opts
        fill = {k: v for k, v in defaults.items()
                if v is not None and k not in given and k in info.options}
        return self.with_options(**fill) if fill else self

    def __str__(self) -> str:
        return self.text


def _target_slug(target: str) -> str:
    if os.path.isdir(target):
        path = Path(target).resolve()
        digest = hashlib.sha256(str(path).encode()).hexdigest()[:6]
        return f"local-{_SLUG_BAD.sub('-', path.name).strip('-') or 'model'}-{digest}"
    return _SLUG_BAD.sub("-", target.replace("/", "--")).strip("-")


def _forms() -> str:
    return "; ".join(f"{b.form} ({b.description})" for b in BACKENDS.values())


def parse_model_spec(spec: str | LMSpec, *, model_args: str | dict | None = None,
                     dry_run: bool | None = None, **options) -> LMSpec:
    """Parse ``spec`` (see the module doc) into an :class:`LMSpec` with ``model_args``
    (``"k=v,..."`` or a dict) and ``options`` added; an :class:`LMSpec` is returned with them
    added. ``dry_run`` (None: the profile's, read here where the spec is made) is the paper
    profile's dry run: a hub model stands in as a tiny random model of its architecture. Raises :class:`ModelSpecError` saying what is wrong and the forms there are."""
    extra = {**parse_model_args(model_args), **options}
    if isinstance(spec, LMSpec):
        out = spec.with_options(**extra)
        return out if dry_run is None else replace(out, dry_run=bool(dry_run))
    if not isinstance(spec, str) or not spec.strip():
        raise ModelSpecError(f"a model spec must be a non-empty string, got {spec!r}. Forms: {_forms()}")
    spec = spec.strip()
    if spec.startswith(("http://", "https://")):
        raise ModelSpecError(f"{spec!r} is a URL: name the backend, e.g. 'openai:{spec}#<model>'")
    backend, rest = "hf", spec
    head, sep, tail = spec.partition(":")
    if sep and head in BACKENDS and not os.path.isdir(spec):
        backend, rest = head, tail
        if not rest:
            raise ModelSpecError(f"model spec {spec!r} names the backend {head!r} but no model; "
                                 f"form: {BACKENDS[head].form}")
    elif sep and head not in KIND_WORDS and not os.path.isdir(spec) and "/" not in head:
        raise ModelSpecError(f"model spec {spec!r}: {head!r} is no backend ({', '.join(BACKENDS)}) "
                             f"and no model kind ({', '.join(KIND_WORDS)}). Forms: {_forms()}")
    model = kind = None
    if backend == "openai":
        url, _, model = rest.partition("#")
        if not url.startswith(("http://", "https://")):
            raise ModelSpecError(f"model spec {spec!r}: after 'openai:' comes the server's base URL "
                                 "(http:// or https://), e.g. openai:http://127.0.0.1:8000/v1#my-model")
        rest, model = url.rstrip("/"), (model or None)
    else:
        if "#" in rest and not os.path.isdir(rest):
            raise ModelSpecError(f"model spec {spec!r}: '#<model>' belongs to openai: specs only")
        k, sep, t = rest.partition(":")
        if sep and k in KIND_WORDS and not os.path.isdir(rest):
            if not t:
                raise ModelSpecError(f"model spec {spec!r} states the kind {k!r} but no model")
            kind, rest = k, t
    if dry_run is None:  # where the spec is made: the profile's (./run_all.sh --dry-run)
        from nlgbias.profiles import dry_run as profile_dry_run

        dry_run = profile_dry_run()
    out = LMSpec(backend, rest, model, kind, dry_run=bool(dry_run))
    return out.with_options(**extra) if extra else out


def decoding_of(spec: LMSpec, **overrides):
    """The decoding a model samples with when a run states none, the SAME whichever backend
    runs the weights: a registered name's settings (the paper's, :data:`nlgbias.models.MODELS`),
    else those of any causal model of the registry (GPT-2's, ``GPT2_DECODING``); for a server,
    the served model's registered name decides, else the same default. ``overrides`` as
    :func:`nlgbias.engine.decoding.decoding_for`."""
    from nlgbias.engine.decoding import decoding_for

    return decoding_for(registry_entry(parse_model_spec(spec)), **overrides)


def kind_of(spec: LMSpec) -> str:
    """The model kind (a key of :data:`nlgbias.models.KINDS`) of ``spec``: its registry entry's
    (:func:`registry_entry`) for the ``hf`` backend; "causal" behind any other (servers and the
    other engines run causal LMs)."""
    spec = parse_model_spec(spec)
    return registry_entry(spec).kind if spec.local_weights else "causal"


def parse_models(names, *, model_args: str | dict | None = None, dry_run: bool | None = None,
                 check: bool = True, **defaults) -> list[LMSpec]:
    """Where a notebook's or the runner's models enter: each name parsed once
    (:func:`parse_model_spec`) with ``model_args`` (the user's options, for every model),
    ``defaults`` (a notebook's ``device``, ``dtype``, ... where a backend takes them,
    :meth:`LMSpec.with_defaults`) and ``dry_run`` (None: the profile's,
    :func:`nlgbias.profiles.dry_run`); with ``check``, each is checked before any work
    (:func:`check_spec`: weights that cannot be loaded here, a server that does not answer)."""
    if dry_run is None:
        from nlgbias.profiles import dry_run as profile_dry_run

        dry_run = profile_dry_run()
    if isinstance(names, str | LMSpec):
        names = [names]
    specs = [parse_model_spec(n, model_args=model_args, dry_run=dry_run).with_defaults(**defaults)
             for n in names]
    if check:
        for s in specs:
            check_spec(s)
    return specs


def check_spec(spec: LMSpec) -> LMSpec:
    """Fail fast, before any work: the backend's ``check(spec)`` (an ``hf`` model whose weights
    are not here, a server that does not answer) raises one message naming what is wrong."""
    cls = spec.info.load()
    if callable(getattr(cls, "check", None)):
        cls.check(spec)
    return spec


def registry_entry(spec: LMSpec):
    """The registry's entry (:class:`nlgbias.models.ModelSpec`: kind, description, decoding,
    control code) of the weights ``spec`` runs. A server's weights are not visible here: its
    entry is a causal LM named by the spec's label, with the decoding and paper role of the
    served model's registered name where it has one (GPT-2's decoding otherwise), no files."""
    from nlgbias.models.registry import GPT2_DECODING, MODELS, ModelSpec, get_spec

    if spec.backend != "openai":
        return get_spec(spec.target, kind=spec.kind, dry_run=spec.dry_run)
    known = MODELS.get(spec.model or "")
    return ModelSpec(spec.display, "causal",
                     description=f"{spec.model or 'the model'} behind an OpenAI-compatible server",
                     decoding=known.decoding if known else GPT2_DECODING,
                     substitute_for=known.substitute_for if known else None,
                     chat=known.chat if known else False)


def model_source(spec: LMSpec, entry=None) -> str:
    """Where the weights come from, for a generation file's ``model_source`` column: a GGUF
    file, a hub id, ``local folder <name>`` (never its path), a server's ``openai:<URL>``
    (never a key), ``<backend>:<source>`` for another engine. ``entry``: the registry entry
    when the caller has it (a model loaded already)."""
    if spec.backend == "openai":
        return f"openai:{spec.target}"
    entry = entry or registry_entry(spec)
    if entry.gguf_file:
        own = entry.gguf_file
    elif entry.hub_id and entry.hub_id == entry.name and os.path.isdir(entry.hub_id):
        own = f"local folder {Path(entry.hub_id).resolve().name}"
    else:
        own = entry.hub_id or entry.kind
    return own if spec.backend == "hf" else f"{spec.backend}:{own}"

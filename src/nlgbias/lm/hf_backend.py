"""The ``hf`` backend of :class:`~nlgbias.lm.LM`: a model of the registry run in this
process, through the project's own code paths (the numbers are theirs):

- causal LMs: log-likelihoods by :func:`nlgbias.likelihood.causal_logprobs` (shared-prefix
  batches; the start token of :func:`~nlgbias.likelihood.start_token_id`), rolling
  log-likelihood by :func:`nlgbias.likelihood.sentence_logprobs`, generation and chat by the
  engine (:class:`nlgbias.generation.CausalGenerator`: continuous batching, one seed per row);
- masked LMs: pseudo-log-likelihood (:func:`nlgbias.likelihood.pseudo_log_likelihood`) and
  Gibbs generation (:class:`nlgbias.generation.GibbsGenerator`, BOLD A.2.1);
- sequence-to-sequence LMs (BlenderBot): generation and chat from the encoder input built by
  :func:`dialogue_text` (BlenderBot's own dialogue format), one seeded row at a time with
  ``transformers``' ``generate``; ``log p(continuation | context)`` as the decoder's
  log-likelihood of the continuation given the context as encoder input.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from nlgbias import likelihood as L
from nlgbias.engine.causal import CausalGenerator
from nlgbias.engine.decoding import DecodingParams, decoding_for
from nlgbias.lm.interface import (
    LM,
    Generation,
    GenerationRequest,
    LoglikelihoodResult,
    RollingResult,
    TokenLogprobs,
    UnsupportedCapabilityError,
    as_requests,
    chat_requests,
    finish,
)
from nlgbias.lm.spec import LMSpec, parse_model_spec

__all__ = ["HFLM", "dialogue_text"]

#: model types whose encoder input is BlenderBot's dialogue format (:func:`dialogue_text`)
BLENDERBOT_TYPES = ("blenderbot", "blenderbot-small")


def dialogue_text(messages: Sequence[dict]) -> str:
    """BlenderBot's dialogue format (its tokenizer's chat template, ParlAI's history): each
    user turn starts with a space, turns are joined by two spaces; the tokenizer then appends
    ``</s>``.

    >>> dialogue_text([{"role": "user", "content": "Hi!"}, {"role": "assistant", "content": "Hey."},
    ...                {"role": "user", "content": "I am a nurse."}])
    ' Hi!  Hey.   I am a nurse.'
    """
    return "  ".join((" " if m["role"] == "user" else "") + m["content"] for m in messages)


class _MessagesGenerator(CausalGenerator):
    """The engine with a whole conversation per row (the tokenizer's chat template, the
    generation prompt added) instead of one user turn."""

    def encode(self, prompt) -> list[int]:
        ids = self.tok.apply_chat_template(list(prompt), add_generation_prompt=True, tokenize=True)
        if hasattr(ids, "keys"):
            ids = ids["input_ids"]
        return list(ids) or [self.start]


class HFLM(LM):
    """A registry model run in this process: built from an :class:`~nlgbias.lm.spec.LMSpec`
    (:meth:`from_spec`; its options ``device``, ``dtype`` (``"auto"``: bfloat16 where the CPU
    has bf16 units, as the notebooks; ``"float32"`` for exact comparisons), ``batch_size``,
    ``revision``, ``trust_remote_code``, ``device_map``), or around an already ``loaded``
    :class:`~nlgbias.models.LoadedModel`. ``gibbs``: the Gibbs settings of a masked LM's
    generation (default the paper's)."""

    backend = "hf"

    def __init__(self, name: str | LMSpec | None = None, *, device: str = "cpu",
                 dtype: str | None = "auto", batch_size: int = 32, loaded=None, gibbs=None):
        if loaded is None:
            if name is None:
                raise ValueError("HFLM needs a model name or a loaded model")
            spec = parse_model_spec(name, device=device, dtype=dtype, batch_size=batch_size)
            if spec.backend != "hf":
                raise ValueError(f"HFLM runs hf models; {spec.text!r} is {spec.backend}")
            loaded = _load(spec)
        else:
            spec = (parse_model_spec(name) if name is not None
                    else parse_model_spec(loaded.spec.name)).with_options(
                device=loaded.device, batch_size=batch_size)
        self.lm = loaded
        self.entry = loaded.spec  # the registry's entry (kind, decoding, control code)
        self.spec = spec
        self.name = spec.text
        self.kind = loaded.spec.kind
        self.batch_size = spec.opts.get("batch_size", batch_size)
        self.gibbs = gibbs

    @classmethod
    def around(cls, model, tokenizer, kind: str | None = None, *, batch_size: int = 32,
               name: str = "in-memory") -> HFLM:
        """The interface over a model and tokenizer already in memory (a test's tiny model, a
        tuned copy): ``kind`` "causal" / "masked" / "seq2seq" (None: from the model's class)."""
        from nlgbias.models import LoadedModel, ModelSpec

        if kind is None:
            kind = L.lm_kind(model)
        try:
            device = str(next(model.parameters()).device)
        except (StopIteration, AttributeError):
            device = "cpu"
        if tokenizer.pad_token is None and tokenizer.eos_token is not None:
            tokenizer.pad_token = tokenizer.eos_token
        loaded = LoadedModel(ModelSpec(name, kind, description="a model in memory"), model,
                             tokenizer, device)
        return cls(name, loaded=loaded, batch_size=batch_size)

    @property
    def device(self) -> str:
        return self.lm.device

    @staticmethod
    def check(spec: LMSpec) -> None:
        """Raise at once when the weights cannot be loaded here
        (:func:`nlgbias.models.check_available`)."""
        from nlgbias.models import check_available

        check_available(spec.target, kind=spec.kind, dry_run=spec.dry_run)

    @classmethod
    def from_spec(cls, spec: LMSpec, *, gibbs=None) -> HFLM:
        return cls(spec, device=spec.opts.get("device", "cpu"), dtype=spec.opts.get("dtype", "auto"),
                   batch_size=spec.opts.get("batch_size", 32), gibbs=gibbs)

    @property
    def tokenizer(self):
        return self.lm.tokenizer

    @property
    def model(self):
        return self.lm.model

    # ------------------------------------------------------------------ likelihoods
    def loglikelihood(self, requests, *, greedy: bool = False):
        requests = [(str(c), str(x)) for c, x in requests]
        if not requests:
            return []
        if self.kind == "seq2seq":
            return self._seq2seq_loglikelihood(requests)
        if self.kind == "masked":
            if any(ctx for ctx, _ in requests):
                raise UnsupportedCapabilityError(
                    f"hf backend, masked LM {self.name!r}: log p(continuation | context) is not "
                    "defined for a masked LM; score whole texts with loglikelihood_rolling "
                    "(pseudo-log-likelihood) or pass an empty context")
            rolled = self.loglikelihood_rolling([x for _, x in requests])
            return [LoglikelihoodResult(r.logprob, None, r.n_tokens) for r in rolled]
        prefixes, conts = L.causal_items(self.tokenizer, [x for _, x in requests],
                                         [c for c, _ in requests], separator="")
        groups = L.prefix_groups([p + c for p, c in zip(prefixes, conts)])
        sums, counts = L.causal_logprobs(self.model, self.tokenizer, prefixes, conts, groups=groups,
                                         batch_size=self.batch_size, device=self.lm.device)
        flags = self._causal_greedy(prefixes, conts) if greedy else [None] * len(conts)
        return [LoglikelihoodResult(float(s), g, int(n)) for s, g, n in zip(sums, flags, counts)]

    def _causal_greedy(self, prefixes, conts) -> list[bool]:
        """Whether each continuation is the argmax path (one forward per item)."""
        import torch

        out = []
        with torch.inference_mode():
            for p, c in zip(prefixes, conts):
                ids = torch.tensor([p + c], device=self.lm.device)
                logits = self.model(input_ids=ids).logits[0, len(p) - 1:-1]
                out.append(bool((logits.argmax(-1).cpu() == torch.tensor(c)).all()))
        return out

    def loglikelihood_rolling(self, texts):
        texts = [str(t) for t in texts]
        if not texts:
            return []
        if self.kind == "seq2seq":
            raise UnsupportedCapabilityError(
                f"hf backend, sequence-to-sequence model {self.name!r}: the log-likelihood of a "
                "whole text is not defined; use loglikelihood((context, reply))")
        df = L.sentence_logprobs(self.lm, texts, batch_size=self.batch_size)
        return [RollingResult(float(a), int(b)) for a, b in zip(df["logprob"], df["n_tokens"])]

    def sentence_logprobs(self, texts, contexts=None, groups=None, batch_size=None):
        """:func:`nlgbias.likelihood.sentence_logprobs` on the loaded weights (``groups``: texts
        sharing a token prefix, which runs once; the numbers are the same without)."""
        if self.kind == "seq2seq":
            return super().sentence_logprobs(texts, contexts)
        return L.sentence_logprobs(self.lm, list(texts), contexts=contexts, groups=groups,
                                   batch_size=batch_size or self.batch_size)

    def token_logprobs(self, texts):
        texts = [str(t) for t in texts]
        if self.kind == "causal":
            enc = L.encode_many(self.tokenizer, texts)
            lps = L.causal_token_logprobs(self.model, self.tokenizer, texts, encoded=enc,
                                          batch_size=self.batch_size, device=self.lm.device)
            return [TokenLogprobs(tuple(ids[len(ids) - len(lp):]), tuple(map(float, lp)))
                    for ids, lp in zip(enc, lps)]
        if self.kind == "masked":
            enc = [list(self.tokenizer(t)["input_ids"]) for t in texts]
            special = set(self.tokenizer.all_special_ids)
            pos = [[p for p, t in enumerate(ids) if t not in special] for ids in enc]
            lps = L.masked_token_scores(self.model, self.tokenizer, enc, pos,
                                        batch_size=self.batch_size, device=self.lm.device)
            return [TokenLogprobs(tuple(ids), tuple(map(float, lp))) for ids, lp in zip(enc, lps)]
        raise UnsupportedCapabilityError(f"hf backend: token_logprobs of a {self.kind} model "
                                         f"({self.name!r})")

    def next_sentence_model(self):
        """The checkpoint's next-sentence-prediction head (BERT; StereoSet's intersentence
        CATs), or None where it has none (RoBERTa): an extra of masked models in this process."""
        if self.kind != "masked":
            return None
        from transformers import AutoModelForNextSentencePrediction

        try:
            nsp = AutoModelForNextSentencePrediction.from_pretrained(self.entry.hub_id)
        except (ValueError, OSError):
            return None
        return nsp.to(self.lm.device).to(self.model.dtype).eval()

    # ------------------------------------------------------------------ generation
    def _params(self, params: DecodingParams | None) -> DecodingParams:
        # the registry entry's decoding: what decoding_of(spec) gives any backend for these weights
        return params if params is not None else decoding_for(self.entry)

    def _by_length(self, reqs, params):
        """Request indices grouped by their max_new_tokens (one engine run per group)."""
        groups: dict[int, list[int]] = {}
        for i, r in enumerate(reqs):
            groups.setdefault(r.max_new_tokens or params.max_new_tokens, []).append(i)
        return groups

    def generate_until(self, requests, params=None):
        reqs = as_requests(requests)
        if any(not isinstance(r.prompt, str) for r in reqs):
            raise ValueError("generate_until takes text prompts; use chat() for conversations")
        params = self._params(params)
        if self.kind == "seq2seq":
            return self._seq2seq_generate(reqs, params, [[{"role": "user", "content": r.prompt}]
                                                         for r in reqs])
        out: list[Generation | None] = [None] * len(reqs)
        for m, idx in self._by_length(reqs, params).items():
            p = replace(params, max_new_tokens=m)
            if self.kind == "masked":
                from nlgbias.engine.gibbs import GibbsGenerator, GibbsParams

                engine = GibbsGenerator(self.lm, self.gibbs or GibbsParams(), batch_size=16)
            else:
                engine = CausalGenerator(self.lm, p, batch_size=self.batch_size)
            comps = engine.generate([reqs[i].prompt for i in idx], [reqs[i].seed for i in idx])
            for i, c in zip(idx, comps):
                out[i] = finish(c.generation, c.n_new_tokens, c.finish_reason, reqs[i], p)
        return out  # type: ignore[return-value]

    def chat(self, requests, params=None):
        reqs = chat_requests(requests)
        params = self._params(params)
        if self.kind == "seq2seq":
            return self._seq2seq_generate(reqs, params, [list(r.prompt) for r in reqs])
        if self.kind != "causal":
            raise UnsupportedCapabilityError(f"hf backend: chat with a {self.kind} model "
                                             f"({self.name!r}) is not supported")
        if not getattr(self.tokenizer, "chat_template", None):
            raise UnsupportedCapabilityError(
                f"hf backend: model {self.name!r} has no chat template, so chat() cannot format a "
                "conversation; use generate_until with plain prompts")
        out: list[Generation | None] = [None] * len(reqs)
        for m, idx in self._by_length(reqs, params).items():
            p = replace(params, max_new_tokens=m)
            engine = _MessagesGenerator(self.lm, p, batch_size=self.batch_size, prompt_format="chat")
            comps = engine.generate([reqs[i].prompt for i in idx], [reqs[i].seed for i in idx])
            for i, c in zip(idx, comps):
                out[i] = finish(c.generation, c.n_new_tokens, c.finish_reason, reqs[i], p)
        return out  # type: ignore[return-value]

    # ------------------------------------------------------------------ sequence-to-sequence
    def _encoder_ids(self, messages: Sequence[dict]) -> list[int]:
        """The encoder input of a conversation: BlenderBot's dialogue format (and ``</s>``),
        else the tokenizer's chat template, else the user turns joined by line breaks; cut from
        the left to the model's positions, as ParlAI truncates the history."""
        tok, cfg = self.tokenizer, self.model.config
        if getattr(cfg, "model_type", None) in BLENDERBOT_TYPES:
            ids = L.encode(tok, dialogue_text(messages))
            ids = ids + [tok.eos_token_id] if tok.eos_token_id is not None else ids
        elif getattr(tok, "chat_template", None):
            ids = tok.apply_chat_template(list(messages), tokenize=True)
            ids = list(ids["input_ids"] if hasattr(ids, "keys") else ids)
        else:
            ids = list(tok("\n".join(m["content"] for m in messages))["input_ids"])
        limit = getattr(cfg, "max_position_embeddings", None)
        return ids[-limit:] if limit else ids

    def _gen_config(self, params: DecodingParams, max_new: int):
        """The decoding of :class:`DecodingParams` on top of the model's special tokens (one
        beam; the model's own beam-search defaults are not used)."""
        import copy

        gc = copy.deepcopy(self.model.generation_config)
        gc.update(num_beams=1, do_sample=params.do_sample, max_new_tokens=max_new,
                  min_length=0, min_new_tokens=None, no_repeat_ngram_size=0, length_penalty=1.0,
                  repetition_penalty=params.repetition_penalty,
                  top_k=params.top_k if params.do_sample else None,
                  top_p=params.top_p if params.do_sample else None,
                  temperature=params.temperature if params.do_sample else None)
        return gc

    def _seq2seq_generate(self, reqs: list[GenerationRequest], params: DecodingParams,
                          conversations) -> list[Generation]:
        import torch

        tok, model, dev = self.tokenizer, self.model, self.lm.device
        eos = tok.eos_token_id
        special = set(tok.all_special_ids)
        out = []
        with torch.inference_mode():
            for req, conv in zip(reqs, conversations):
                m = req.max_new_tokens or params.max_new_tokens
                ids = torch.tensor([self._encoder_ids(conv)], device=dev)
                with torch.random.fork_rng(devices=[]):
                    torch.manual_seed(int(req.seed) % (2 ** 63))
                    seq = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids),
                                         generation_config=self._gen_config(params, m))[0].tolist()
                new = [t for t in seq[1:] if t not in special]  # without the decoder start / eos
                reason = "eos" if eos in seq[1:] else "length"
                text = tok.decode(new, skip_special_tokens=True)
                out.append(finish(text, len(new) + (reason == "eos"), reason, req, params))
        return out

    def _seq2seq_loglikelihood(self, requests):
        import torch

        tok, model, dev = self.tokenizer, self.model, self.lm.device
        out = []
        with torch.inference_mode():
            for ctx, cont in requests:
                enc = torch.tensor([self._encoder_ids([{"role": "user", "content": ctx}])], device=dev)
                tgt = L.encode(tok, cont)
                if not tgt:
                    raise ValueError(f"continuation {cont!r} has no token to score")
                labels = torch.tensor([tgt], device=dev)
                logits = model(input_ids=enc, attention_mask=torch.ones_like(enc),
                               labels=labels).logits[0].float()
                lp = torch.log_softmax(logits, -1).gather(-1, labels[0][:, None]).squeeze(-1)
                greedy = bool((logits.argmax(-1) == labels[0]).all())
                out.append(LoglikelihoodResult(float(lp.sum()), greedy, len(tgt)))
        return out



def _load(spec: LMSpec):
    """Load the weights an ``hf`` spec names, with its options."""
    import torch

    from nlgbias.hardware import resolve_dtype
    from nlgbias.models import load_model

    o = spec.opts
    conv = o.get("start_token", "endoftext")
    if conv not in L.START_CONVENTIONS:
        raise ValueError(f"start_token must be one of {', '.join(L.START_CONVENTIONS)}, got {conv!r}")
    device = o.get("device", "cpu")
    dt = o.get("dtype", "auto")
    dt = resolve_dtype(dt, device) if dt is not None else "float32"
    loaded = load_model(spec.target, kind=spec.kind, device=device, dtype=getattr(torch, dt),
                        revision=o.get("revision"), trust_remote_code=bool(o.get("trust_remote_code")),
                        device_map=o.get("device_map"), dry_run=spec.dry_run)
    if loaded.tokenizer is not None and conv != "endoftext":
        loaded.tokenizer.nlgbias_start_convention = conv  # read by likelihood.start_token_id
    return loaded

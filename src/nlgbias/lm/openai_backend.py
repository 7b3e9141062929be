"""The ``openai`` backend of :class:`~nlgbias.lm.LM`: any OpenAI-compatible server
(vLLM's ``vllm serve``, llama.cpp's server, ``transformers serve``, TGI, Ollama, a hosted
API), over the standard library's HTTP client: the base package needs no HTTP dependency, and
the retries, timeouts and key redaction below are this module's own, tested against real
servers (the ``openai`` package, in the ``serve`` extra, would add a dependency without
removing any of them: its retries do not know which fields a server refuses).

- ``generate_until``: ``POST /completions`` (``prompt``, ``max_tokens``, ``temperature``,
  ``top_p``, ``top_k`` when set, ``seed`` per row, ``stop``); the stop strings and the
  first-sentence cut are applied again here, so every server gives the same cut.
- ``chat``: ``POST /chat/completions`` (the server applies the model's chat template).
- ``loglikelihood`` / ``loglikelihood_rolling``: ``POST /completions`` with ``echo`` and
  ``logprobs`` (the prompt's own token log-probabilities; llama.cpp's server and vLLM have
  them, ``transformers serve`` and OpenAI's chat models do not): a server without them raises
  :class:`~nlgbias.lm.UnsupportedCapabilityError` naming the capability. The server's
  first token has no log-probability, so a rolling log-likelihood scores tokens 2..N unless
  ``start_text`` (e.g. ``"<|endoftext|>"``, the start token of the ``hf`` backend) is
  prepended.

An API key, when the server needs one, is read from ``NLGBIAS_OPENAI_API_KEY`` or
``OPENAI_API_KEY`` and only sent in the ``Authorization`` header: it is never part of a repr,
a log line or an error message (any text from the server is redacted before it is shown).
Every request has a timeout; connection errors, 429 and 5xx are retried a bounded number of
times with a growing pause.
"""

from __future__ import annotations

import json
import logging
import os
import time
import urllib.error
import urllib.request
from dataclasses import replace

from nlgbias.engine.decoding import DecodingParams
from nlgbias.lm.interface import (
    LM,
    Generation,
    LoglikelihoodResult,
    RollingResult,
    TokenLogprobs,
    UnsupportedCapabilityError,
    as_requests,
    chat_requests,
    finish,
)
from nlgbias.lm.spec import LMSpec, decoding_of

log = logging.getLogger(__name__)

__all__ = ["KEY_VARIABLES", "OpenAILM", "ServerError"]

#: environment variables an API key is read from, in this order
KEY_VARIABLES = ("NLGBIAS_OPENAI_API_KEY", "OPENAI_API_KEY")
_ECHO = "prompt token log-probabilities (`echo` + `logprobs` on /completions)"
#: request fields outside OpenAI's schema (vLLM and llama.cpp's server take them) and their value
#: when off; sent so that a server's own defaults never change the decoding
EXTENSIONS = {"top_k": 0, "min_p": 0.0, "repetition_penalty": 1.0, "repeat_penalty": 1.0}


class ServerError(RuntimeError):
    """A request the server answered with an error or never answered (after the retries);
    ``answered`` says which (a refusal is an answer; a refused connection or a timeout is not)."""

    def __init__(self, message: str, answered: bool = True):
        super().__init__(message)
        self.answered = answered


class OpenAILM(LM):
    """An OpenAI-compatible server at ``base_url`` (e.g. ``http://127.0.0.1:8000/v1``) serving
    ``model`` (None: the only model the server lists). ``timeout`` seconds per request,
    ``retries`` extra attempts on connection errors, 429 and 5xx; ``concurrency`` requests in
    flight at once (default 1; raise it for a batching server such as vLLM: a CPU server that
    runs each request on its own threads, like ``transformers serve``, only slows down);
    ``default_params`` the decoding when a call gives none."""

    backend = "openai"

    def __init__(self, base_url: str, model: str | None = None, *, timeout: float = 120.0,
                 retries: int = 4, start_text: str | None = None,
                 default_params: DecodingParams | None = None, concurrency: int = 1):
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.timeout, self.retries = float(timeout), int(retries)
        self.concurrency = max(1, int(concurrency))
        self.start_text = start_text
        self.default_params = default_params or DecodingParams()
        self._rejected: set[str] = set()  # extension fields this server refuses
        self._key_from = next((v for v in KEY_VARIABLES if os.environ.get(v)), None)
        self.model = model or self._only_model()
        self.name = f"openai:{self.base_url}#{self.model}"
        self.kind = None

    @classmethod
    def from_spec(cls, spec: LMSpec) -> OpenAILM:
        """The server of an ``openai:`` spec with its options; decoding when a call states none:
        the served model's (:func:`nlgbias.lm.decoding_of`), as in process."""
        o = spec.opts
        lm = cls(spec.target, spec.model, timeout=o.get("timeout", 120.0),
                 retries=o.get("retries", 4), start_text=o.get("start_text"),
                 concurrency=o.get("concurrency", 1))
        lm.spec = spec if spec.model else LMSpec("openai", spec.target, lm.model, None, spec.options)
        lm.default_params = decoding_of(lm.spec)
        return lm

    @staticmethod
    def check(spec: LMSpec) -> None:
        """Raise at once when the server does not answer (one ``GET /models``, 10 s; an HTTP
        error is an answer: ``transformers serve`` cannot list models offline)."""
        probe = OpenAILM.__new__(OpenAILM)
        probe.base_url, probe.timeout, probe.retries = spec.target, 10.0, 0
        probe._key_from = next((v for v in KEY_VARIABLES if os.environ.get(v)), None)
        try:
            probe._request("GET", "models")
        except ServerError as exc:
            if exc.answered:  # an HTTP error is an answer (some servers cannot list models)
                return
            raise ServerError(f"model {spec.display!r}: the server at {spec.target} does not "
                              f"answer: {exc}", answered=False) from None

    def __repr__(self) -> str:
        key = f"key from ${self._key_from}" if self._key_from else "no key"
        return f"<OpenAILM {self.model!r} at {self.base_url} ({key})>"

    # ------------------------------------------------------------------ HTTP
    def _key(self) -> str | None:
        return os.environ.get(self._key_from) if self._key_from else None

    def _redact(self, text: str) -> str:
        key = self._key()
        text = str(text)
        return text.replace(key, "***") if key else text

    def _request(self, method: str, path: str, body: dict | None = None) -> dict:
        url = f"{self.base_url}/{path.lstrip('/')}"
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = self._key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        last, answered = "", False
        for attempt in range(self.retries + 1):
            req = urllib.request.Request(url, data=data, method=method, headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    return json.loads(resp.read().decode("utf-8"))
            except urllib.error.HTTPError as exc:
                detail = self._redact(exc.read().decode("utf-8", "replace")[:500])
                last, answered = f"HTTP {exc.code} from {method} {url}: {detail}", True
                if exc.code not in (408, 429) and exc.code < 500:
                    raise ServerError(last) from None
            except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                last, answered = f"{method} {url} failed: {self._redact(reason)}", False
            except json.JSONDecodeError:
                raise ServerError(f"{method} {url}: the server's answer is not JSON") from None
            if attempt < self.retries:
                time.sleep(min(8.0, 0.5 * 2 ** attempt))
        raise ServerError(f"{last} (after {self.retries + 1} attempts, {self.timeout:.0f} s "
                          "timeout each)", answered=answered)

    def _only_model(self) -> str:
        listed = [m.get("id") for m in self._request("GET", "models").get("data", [])]
        if len(listed) != 1:
            raise ValueError(f"the server at {self.base_url} lists {len(listed)} models "
                             f"({', '.join(map(str, listed[:10]))}): name one, "
                             f"openai:{self.base_url}#<model>")
        return listed[0]

    # ------------------------------------------------------------------ sampling fields
    @staticmethod
    def _sampling(params: DecodingParams, max_new: int, seed: int) -> dict:
        """The decoding fields of a request. Servers fill what a request leaves out with their
        own defaults (llama.cpp's server: top-k 40, top-p 0.95, min-p 0.05, a repetition penalty
        of 1.1, also when greedy), so every field is sent, also when it is off: the fields outside
        OpenAI's schema (:data:`EXTENSIONS`) are dropped, once per server, where a server rejects
        them while they are off, and an error where they are on."""
        body = {"max_tokens": int(max_new), "seed": int(seed) & 0x7FFFFFFF,
                "repetition_penalty": params.repetition_penalty,
                "repeat_penalty": params.repetition_penalty, "min_p": 0.0}
        if not params.do_sample:
            body["temperature"] = 0.0
            return body
        body.update(temperature=params.temperature, top_p=params.top_p, top_k=max(0, params.top_k))
        return body

    def _post(self, path: str, body: dict, what: str) -> dict:
        body = {k: v for k, v in body.items() if k not in self._rejected}
        while True:
            try:
                return self._request("POST", path, body)
            except ServerError as exc:
                msg = str(exc)
                named = [k for k in EXTENSIONS if k in body and k in msg]
                if not named:
                    raise
                on = [k for k in named if body[k] != EXTENSIONS[k]]
                if on:
                    raise UnsupportedCapabilityError(
                        f"openai backend ({self.base_url}): the server rejects {', '.join(on)} "
                        f"({what}); use a decoding without it. Server said: {msg}") from None
                self._rejected.update(named)  # off anyway: leave them out from now on
                body = {k: v for k, v in body.items() if k not in named}

    # ------------------------------------------------------------------ the interface
    def generate_until(self, requests, params=None):
        reqs = as_requests(requests)
        if any(not isinstance(r.prompt, str) for r in reqs):
            raise ValueError("generate_until takes text prompts; use chat() for conversations")
        params = params or self.default_params

        def one(r):
            m = r.max_new_tokens or params.max_new_tokens
            body = {"model": self.model, "prompt": r.prompt, **self._sampling(params, m, r.seed)}
            if r.until:
                body["stop"] = list(r.until)[:4]
            resp = self._post("completions", body, "completions")
            return self._finish(resp, resp["choices"][0].get("text") or "", r,
                                replace(params, max_new_tokens=m))

        return self._map(one, reqs)

    def chat(self, requests, params=None):
        reqs = chat_requests(requests)
        params = params or self.default_params

        def one(r):
            m = r.max_new_tokens or params.max_new_tokens
            body = {"model": self.model, "messages": [dict(x) for x in r.prompt],
                    **self._sampling(params, m, r.seed)}
            if r.until:
                body["stop"] = list(r.until)[:4]
            resp = self._post("chat/completions", body, "chat")
            text = (resp["choices"][0].get("message") or {}).get("content") or ""
            return self._finish(resp, text, r, replace(params, max_new_tokens=m))

        return self._map(one, reqs)

    def _map(self, fn, items) -> list:
        """``fn`` over ``items`` in input order, ``concurrency`` requests in flight (a server
        batches concurrent requests; the first error stops the run)."""
        if self.concurrency <= 1 or len(items) <= 1:
            return [fn(x) for x in items]
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(items))) as pool:
            return list(pool.map(fn, items))

    @staticmethod
    def _finish(resp: dict, text: str, req, params) -> Generation:
        """The shared cut (first sentence, stop strings) of a server's answer; the token count
        is the server's ``usage.completion_tokens`` (0 when it gives none)."""
        n_new = int((resp.get("usage") or {}).get("completion_tokens") or 0)
        why = resp["choices"][0].get("finish_reason")
        return finish(text, n_new, "length" if why == "length" else "eos", req, params)

    def _echo(self, prompt: str) -> dict:
        """The server's ``logprobs`` of ``prompt``'s own tokens and of one greedy token after it:
        ``tokens``, ``token_logprobs``, ``top_logprobs``, ``text_offset``, and ``lead``: how many
        characters of the prompt's start the server's offsets leave out (a special start token
        such as ``<|endoftext|>`` is rendered as no text by llama.cpp's server)."""
        body = {"model": self.model, "prompt": prompt, "max_tokens": 1, "temperature": 0.0,
                "echo": True, "logprobs": 1}
        try:
            choice = self._request("POST", "completions", body)["choices"][0]
        except ServerError as exc:
            if not exc.answered:  # a server that is gone refuses nothing: say so, do not skip
                raise
            raise UnsupportedCapabilityError(
                f"openai backend ({self.base_url}, model {self.model!r}): the server refused "
                f"{_ECHO}, needed for loglikelihood. Server said: {exc}") from None
        lp = choice.get("logprobs") or {}
        offsets, text = lp.get("text_offset"), choice.get("text") or ""
        if not lp.get("token_logprobs") or not offsets or not text.startswith(prompt):
            raise UnsupportedCapabilityError(
                f"openai backend ({self.base_url}, model {self.model!r}): the server does not "
                f"return {_ECHO}, needed for loglikelihood and perplexity. Use a server that "
                "does (llama.cpp's server, vLLM) or the hf/vllm backend.")
        start = self.start_text or ""
        lead = len(start) if start and not "".join(lp.get("tokens") or []).startswith(start) else 0
        if len(text) > len(prompt) and offsets[-1] < len(prompt) - lead:
            # the generated token has no entry: the values are those of the next token (the
            # distribution after each prompt token), as llama-cpp-python 0.3.36 gives them for
            # a prompt without a BOS token
            raise UnsupportedCapabilityError(
                f"openai backend ({self.base_url}, model {self.model!r}): the server's {_ECHO} "
                "are shifted by one token (each value belongs to the next token; "
                "llama-cpp-python's server on a model without a BOS token). "
                "scripts/patch_llama_cpp.py corrects an installed llama-cpp-python.")
        return {**lp, "lead": lead}

    def _score(self, context: str, continuation: str, greedy: bool):
        head = (self.start_text or "") + context
        lp = self._echo(head + continuation)
        total, n, is_greedy = 0.0, 0, True
        begin = len(head) - lp["lead"]
        end = begin + len(continuation)
        for i, off in enumerate(lp["text_offset"]):
            if off < begin or off >= end:
                continue
            val = lp["token_logprobs"][i]
            if val is None:  # the first token of the prompt is never scored
                continue
            total += float(val)
            n += 1
            tops = (lp.get("top_logprobs") or [None] * (i + 1))[i]
            if greedy and tops:
                best = max(tops, key=tops.get)
                is_greedy &= best == lp["tokens"][i]
        if n == 0:
            raise ValueError(f"no token of {continuation!r} was scored by the server")
        return total, (is_greedy if greedy else None), n

    def token_logprobs(self, texts):
        def one(text):
            head = self.start_text or ""
            lp = self._echo(head + str(text))
            begin = len(head) - lp["lead"]
            toks, vals = [], []
            for i, off in enumerate(lp["text_offset"]):
                if off < begin or off >= begin + len(text):
                    continue
                val = lp["token_logprobs"][i]
                if val is None:  # the first token of the prompt is never scored
                    continue
                toks.append(lp["tokens"][i])
                vals.append(float(val))
            return TokenLogprobs(tuple(toks), tuple(vals))

        return self._map(one, list(texts))

    def loglikelihood(self, requests, *, greedy: bool = False):
        return self._map(lambda r: LoglikelihoodResult(*self._score(str(r[0]), str(r[1]), greedy)),
                         list(requests))

    def loglikelihood_rolling(self, texts):
        return self._map(lambda t: RollingResult(*self._score("", str(t), False)[::2]), list(texts))

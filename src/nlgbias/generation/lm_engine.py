"""A language model of :mod:`nlgbias.lm` driven like the engine, so that a generation run
(:func:`nlgbias.generation.runs.generate_dataset`) writes the same table, through the same
resumable chunk cache, whatever serves the model: a sequence-to-sequence model in this process
(BlenderBot), an OpenAI-compatible server, or vLLM.

The project's own engine (:class:`~nlgbias.generation.CausalGenerator`) stays the path of
causal and masked models in this process: it batches continuously across a whole chunk. Here
each batch of rows is one call to :meth:`~nlgbias.lm.LM.generate_until` (plain prompts) or
:meth:`~nlgbias.lm.LM.chat` (chat prompts, and every dialogue model), each row with its own
seed, so a row's text depends on its prompt and seed wherever the backend honours seeds.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

from nlgbias.engine.causal import Completion
from nlgbias.engine.decoding import DecodingParams

__all__ = ["LMEngine"]


class LMEngine:
    """``iter_generate`` / ``generate`` over an :class:`~nlgbias.lm.LM` (the engine's
    interface: batches of ``(index, Completion)``, counters of rows, tokens and seconds).

    ``prompt_format``: ``"plain"`` continues the prompt text (``generation`` is the
    continuation, ``text`` the prompt and continuation); ``"chat"`` sends the prompt as the user
    turn (``generation`` and ``text`` are the reply). A dialogue model (``dialogue=True``,
    BlenderBot) always answers a user turn.
    """

    def __init__(self, lm, params: DecodingParams, *, prompt_format: str = "plain",
                 batch_size: int = 32, dialogue: bool = False):
        if prompt_format not in ("plain", "chat"):
            raise ValueError(f"prompt_format must be 'plain' or 'chat', got {prompt_format!r}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size!r}")
        self.lm, self.params, self.batch_size = lm, params, batch_size
        self.chat = prompt_format == "chat" or dialogue
        self.tokens_generated = 0
        self.rows_done = 0
        self.seconds = 0.0

    @property
    def tokens_per_second(self) -> float:
        return self.tokens_generated / self.seconds if self.seconds else 0.0

    def _completion(self, prompt: str, gen) -> Completion:
        if self.chat:
            return Completion(gen.text, gen.text, gen.n_new_tokens, gen.finish_reason)
        return Completion(gen.text, f"{prompt.rstrip()} {gen.text}".strip(), gen.n_new_tokens,
                          gen.finish_reason)

    def iter_generate(self, prompts: Sequence[str], seeds: Sequence[int],
                      progress=None) -> Iterator[list[tuple[int, Completion]]]:
        """Yield, batch by batch, ``(index into prompts, Completion)`` pairs, in input order."""
        from nlgbias.lm import GenerationRequest

        if len(prompts) != len(seeds):
            raise ValueError(f"{len(prompts)} prompts but {len(seeds)} seeds")
        for start in range(0, len(prompts), self.batch_size):
            idx = list(range(start, min(start + self.batch_size, len(prompts))))
            t0 = time.perf_counter()
            if self.chat:
                reqs = [GenerationRequest(({"role": "user", "content": prompts[i]},), seed=int(seeds[i]))
                        for i in idx]
                gens = self.lm.chat(reqs, self.params)
            else:
                reqs = [GenerationRequest(prompts[i], seed=int(seeds[i])) for i in idx]
                gens = self.lm.generate_until(reqs, self.params)
            self.seconds += time.perf_counter() - t0
            self.tokens_generated += sum(g.n_new_tokens for g in gens)
            self.rows_done += len(idx)
            if progress is not None:
                progress.update(len(idx))
            yield [(i, self._completion(prompts[i], g)) for i, g in zip(idx, gens)]

    def generate(self, prompts: Sequence[str], seeds: Sequence[int] | int = 0) -> list[Completion]:
        """Completions of ``prompts`` in input order (``seeds``: one per prompt, or one int
        from which row ``i`` gets ``seed + i``)."""
        if isinstance(seeds, int):
            seeds = [seeds + i for i in range(len(prompts))]
        return [c for batch in self.iter_generate(prompts, seeds) for _, c in batch]

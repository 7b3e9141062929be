"""The text-generation engine every notebook uses (no dataset names here).

- :mod:`~nlgbias.engine.decoding`: :class:`DecodingParams`, the paper's settings per model,
  per-row seeds, the first-sentence cut.
- :mod:`~nlgbias.engine.causal`: batched sampling from causal LMs (:class:`CausalGenerator`).
- :mod:`~nlgbias.engine.gibbs`: Gibbs sampling from masked LMs (BOLD's BERT).
- :mod:`~nlgbias.generation.ray_backend`: the same engine on a Ray cluster.
- :mod:`~nlgbias.generation.lm_engine`: any model of :mod:`nlgbias.lm` (a dialogue model, a
  server, vLLM) driven like the engine (:class:`LMEngine`).
- :mod:`~nlgbias.generation.runs`: :func:`generate_dataset` - any prompt frame (``prompt_id,
  prompt`` + metadata) to ``<dataset>__<model>.parquet``, several samples per prompt, plain or
  chat prompts, in fixed chunks (:func:`chunk_schedule`) so a killed run resumes to the same
  bytes, sharded, local or on Ray; its steps :func:`plan_run` (what generates, checked before
  anything loads) and :func:`make_engine`; run summaries for the notebooks.
"""

from nlgbias.engine.causal import BatchedGenerator, CausalGenerator, Completion
from nlgbias.engine.decoding import (
    DECODING_COLUMNS,
    DecodingError,
    DecodingParams,
    decoding_for,
    first_sentence,
    row_seed,
)
from nlgbias.engine.gibbs import GibbsGenerator, GibbsParams
from nlgbias.generation.lm_engine import LMEngine
from nlgbias.generation.runs import (
    CHUNK_SIZE,
    PROMPT_FORMATS,
    RUN_COLUMNS,
    Chunk,
    ChunkCache,
    RunInfo,
    RunPlan,
    chunk_schedule,
    count_table,
    finish_table,
    generate_dataset,
    generate_models,
    length_table,
    make_engine,
    output_columns,
    output_name,
    parse_shard,
    plan_run,
    read_generations,
    row_key,
    run_table,
    sample_seed,
    select_shard,
    shard_of,
    with_word_counts,
)

__all__ = ["CHUNK_SIZE", "DECODING_COLUMNS", "PROMPT_FORMATS", "RUN_COLUMNS", "BatchedGenerator", "CausalGenerator",
           "Chunk", "ChunkCache", "Completion", "DecodingError", "DecodingParams", "GibbsGenerator", "GibbsParams", "LMEngine",
           "RunInfo", "RunPlan", "make_engine", "plan_run",
           "chunk_schedule", "count_table", "decoding_for", "finish_table", "first_sentence", "generate_dataset",
           "generate_models", "length_table", "output_columns", "output_name", "parse_shard",
           "read_generations", "row_key", "row_seed", "run_table", "sample_seed", "select_shard",
           "shard_of", "with_word_counts"]

"""The text-generation engine every notebook uses (no dataset names here).

- :mod:`~nlgbias.generation.decoding`: :class:`DecodingParams`, the paper's settings per model,
  per-row seeds, the first-sentence cut.
- :mod:`~nlgbias.generation.engine`: batched sampling from causal LMs (:class:`CausalGenerator`).
- :mod:`~nlgbias.generation.gibbs`: Gibbs sampling from masked LMs (BOLD's BERT).
- :mod:`~nlgbias.generation.runs`: :func:`generate_dataset` - any prompt frame to a parquet,
  resumable, sharded, or on Ray (:mod:`~nlgbias.generation.ray_backend`).
"""

from nlgbias.generation.decoding import (
    DecodingError,
    DecodingParams,
    decoding_for,
    first_sentence,
    row_seed,
)
from nlgbias.generation.engine import BatchedGenerator, CausalGenerator, Completion
from nlgbias.generation.runs import (
    COLUMNS,
    RunInfo,
    generate_dataset,
    generate_models,
    output_name,
    parse_shard,
    read_generations,
    select_shard,
    shard_of,
)

__all__ = ["COLUMNS", "BatchedGenerator", "CausalGenerator", "Completion", "DecodingError",
           "DecodingParams", "RunInfo", "decoding_for", "first_sentence", "generate_dataset",
           "generate_models", "output_name", "parse_shard", "read_generations", "row_seed",
           "select_shard", "shard_of"]

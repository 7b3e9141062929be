"""The engine layer: how text is sampled from a model loaded in this process, below the
language-model interface (:mod:`nlgbias.lm`) and the generation runs above it
(:mod:`nlgbias.generation`). It knows models (:mod:`nlgbias.models`) and nothing above.

- :mod:`~nlgbias.engine.decoding`: :class:`DecodingParams` (validated), the decoding of a
  registry model, per-row seeds, the first-sentence cut.
- :mod:`~nlgbias.engine.causal`: batched sampling from causal LMs (:class:`CausalGenerator`:
  continuous batching, one seed per row).
- :mod:`~nlgbias.engine.gibbs`: Gibbs sampling from masked LMs (BOLD's BERT, A.2.1).
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

__all__ = ["DECODING_COLUMNS", "BatchedGenerator", "CausalGenerator", "Completion", "DecodingError",
           "DecodingParams", "GibbsGenerator", "GibbsParams", "decoding_for", "first_sentence",
           "row_seed"]

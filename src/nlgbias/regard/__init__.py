"""Sheng et al. 2019 ("The Woman Worked as a Babysitter: On Biases in Language Generation") end
to end, and regard on BOLD (Dhamala et al. 2021, §4.3, Table 5).

- :mod:`~nlgbias.regard.paper`: the papers' numbers, transcribed once.
- :mod:`~nlgbias.regard.baselines`: Figure 1's comparison models (VADER, TextBlob, 2-layer LSTMs).
- :mod:`~nlgbias.regard.analysis`: Table 5 correlations, Figure 2 distributions and findings,
  BOLD Table 5.
- :mod:`~nlgbias.regard.figures`: the figures.
- ``python -m nlgbias.regard train``: train and save the classifier (:mod:`nlgbias.metrics.regard`).
"""

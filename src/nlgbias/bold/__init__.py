"""BOLD (Dhamala et al. 2021): one package for the paper.

- :mod:`~nlgbias.bold.paper`: every number the paper prints (Tables 1-4, 6, 8-11, §6.1-6.2).
- :mod:`~nlgbias.bold.prompts`: prompt reconstruction (§3.2), anonymisation (§3.3), Table 1.
- :mod:`~nlgbias.bold.sources`: prompts for generation, the WIKI baseline, Table 7 examples.
- :mod:`~nlgbias.bold.texts`: the text sources notebooks 03-04 score (WIKI + notebook 02's files).
- :mod:`~nlgbias.bold.sentiment_toxicity`: §4.1-4.2 and §6.1-6.2 (notebook 03).
- :mod:`~nlgbias.bold.norms_gender`: §4.4-4.5, Tables 3, 4, 6, 9-11, Figure 2 (notebook 04).
- :mod:`~nlgbias.bold.figures`: Figures 2-5 and the prompts-per-group plot.
"""

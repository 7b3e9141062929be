"""BOLD (Dhamala et al. 2021): one package for the paper.

- :mod:`~nlgbias.bold.paper`: the paper's transcribed numbers (tables, §6 statistics).
- :mod:`~nlgbias.bold.prompts`: prompt reconstruction (§3.2), anonymisation (§3.3), Table 1.
- :mod:`~nlgbias.bold.sources`: prompts for generation, the WIKI baseline, Table 7 examples.
- :mod:`~nlgbias.bold.sentiment_toxicity`: §4.1-4.2 and §6.1-6.2 (notebook 03).
"""

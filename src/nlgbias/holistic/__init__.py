"""HolisticBias (Smith et al. 2022): likelihood bias, generation bias, offensiveness by
descriptor (notebook 07) and bias-reduction tuning (notebook 08).

- :mod:`~nlgbias.holistic.paper`: the paper's numbers (Tables 2-4, 7, 8, 11, 12).
- :mod:`~nlgbias.holistic.likelihood_bias`: Table 3 (Mann-Whitney pair shares).
- :mod:`~nlgbias.holistic.genbias`: Full / Partial / Summed-Cluster Gen Bias, style clusters.
- :mod:`~nlgbias.holistic.masking`: descriptor -> "left-handed" (App. A.3).
- :mod:`~nlgbias.holistic.offensiveness`: Tables 11 and 12.
- :mod:`~nlgbias.holistic.responses`: the data files notebook 07 writes (08 reads them).
- :mod:`~nlgbias.holistic.figures`: Figures 2 and 3.

Submodules are imported on use (``from nlgbias.holistic import genbias``).
"""

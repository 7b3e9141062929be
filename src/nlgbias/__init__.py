"""nlgbias: end-to-end reproductions of four papers on social bias in language generation.

BOLD (Dhamala et al. 2021), regard (Sheng et al. 2019), StereoSet (Nadeem et al. 2021)
and HolisticBias (Smith et al. 2022). Notebooks under ``notebooks/`` call these helpers.
"""

from nlgbias import hardware as _hardware  # noqa: F401 - OpenMP's wait policy, before torch loads

__version__ = "0.1.0"

"""Dataset loaders, validated on load (one module per dataset, loaders and validation only).

Every loader finds its files through :mod:`nlgbias.resources` and raises
:class:`~nlgbias.datasets.base.DataFormatError` naming the file and the problem when a file
is malformed or truncated.

- :mod:`~nlgbias.datasets.bold`: BOLD prompts + Wikipedia sentences (``load_bold``)
- :mod:`~nlgbias.datasets.stereoset`: StereoSet CATs (``load_stereoset``)
- :mod:`~nlgbias.datasets.holisticbias`: HolisticBias noun phrases and sentences
- :mod:`~nlgbias.datasets.regard`: regard annotations and prompts (Sheng et al. 2019)
"""

from nlgbias.datasets.base import DataFormatError

__all__ = ["DataFormatError"]

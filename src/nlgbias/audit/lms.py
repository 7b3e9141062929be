"""The models an audit scores with: one likelihood :class:`~nlgbias.lm.LM` per spec for the
whole run (:func:`scoring_lm`), kept in the run's config and freed when the run ends."""

from __future__ import annotations

from nlgbias.lm import LazyLM, LMSpec


def scoring_lm(cfg, spec: LMSpec) -> LazyLM:
    """The likelihood :class:`~nlgbias.lm.LM` of ``spec`` as every likelihood suite scores with
    it (its options, float32 and the CPU where it sets none: what
    :func:`nlgbias.stereoset.model_scores`, :func:`nlgbias.stereoset.crows_pairs.pair_scores` and
    :func:`nlgbias.holistic.responses.score_perplexity` each build): one per spec in the run of
    ``cfg`` (an :class:`~nlgbias.audit.suites.AuditConfig`; its ``lms``), built on the first
    sentence that is not cached (a warm rerun loads nothing), so StereoSet, CrowS-Pairs and
    HolisticBias load its weights once."""
    key = spec.with_defaults(device="cpu", dtype="float32")
    if key not in cfg.lms:
        cfg.lms[key] = LazyLM(key)
    return cfg.lms[key]


__all__ = ["scoring_lm"]

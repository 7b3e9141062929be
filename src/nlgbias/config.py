"""Profile-dependent defaults for notebook parameters.

A notebook's parameters cell leaves profile-dependent values as ``None``; the notebook then
calls :func:`resolve_params` with the defaults its module defines per profile.
"""

from __future__ import annotations

from nlgbias.paths import check_profile


def resolve_params(defaults: dict[str, dict], profile: str, **given) -> dict:
    """Fill the ``None`` values of ``given`` from ``defaults[profile]``.

    >>> resolve_params({"quick": {"n": 5}, "smoke": {"n": 1}, "paper": {"n": None}}, "smoke", n=None)
    {'n': 1}

    Unknown parameter names (not in the profile's defaults) raise a ValueError naming them.
    """
    check_profile(profile)
    if profile not in defaults:
        raise ValueError(f"no defaults for profile {profile!r}")
    table = defaults[profile]
    unknown = sorted(set(given) - set(table))
    if unknown:
        raise ValueError(f"unknown parameter(s) {', '.join(unknown)}; known: {', '.join(sorted(table))}")
    return {k: (table[k] if given.get(k) is None else given[k]) for k in table}

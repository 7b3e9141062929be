"""Audit a model: the papers' measurements on YOUR model beside a baseline you choose, on the
same items with the same seeds, with paired differences and 95 % intervals
(``nlgbias audit --model SPEC --baseline SPEC --suites stereoset,crows,bold,regard,holistic --out DIR``).

Not a reproduction: nothing here is graded against a paper's number (the reproduction's
scorecard, :mod:`nlgbias.scorecard`, stays for the papers' models). An audit says what a
model measures, how sure that is, and how it differs from the baseline on identical items.

- :mod:`~nlgbias.audit.suites`: the suites (:data:`SUITES`: what each measures, its unit and
  sizes, the capability it needs) and their computation;
- :mod:`~nlgbias.audit.report`: ``results.json`` (schema :data:`SCHEMA`) and the HTML report.
"""

from nlgbias.audit.report import SCHEMA, write_report, write_results
from nlgbias.audit.suites import SIZES, SUITES, AuditConfig, run_audit

__all__ = ["SCHEMA", "SIZES", "SUITES", "AuditConfig", "run_audit", "write_report", "write_results"]

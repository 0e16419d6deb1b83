"""Empirical privacy audits: neighbouring-sequence experiments with valid lower bounds on epsilon.

``audit_algorithm(name, epsilon=..., variant=...)`` audits a registered algorithm;
``audit(mechanism, pairs)`` any :class:`Mechanism` (third-party Python code and external programs
through :mod:`dpbandits.audit.adapters` and :mod:`dpbandits.audit.external`); ``audit_all`` every
registered algorithm and variant. Results are :class:`AuditResult` objects (JSON via
``to_json``). The statistics follow the audit recipes: selection and test samples, one-sided
Clopper-Pearson bounds, exact likelihood ratios where the algorithm exposes them.
"""

from ..lazy import lazy_exports

_WHERE = {
    "CallableMechanism": "adapters", "PolicyMechanism": "adapters",
    "clopper_pearson_lower": "confidence", "clopper_pearson_upper": "confidence",
    "epsilon_estimate": "confidence", "epsilon_lower_bound": "confidence",
    "hoeffding_lower_bound": "confidence", "max_attainable_bound": "confidence",
    "CommandMechanism": "external",
    "designed_pairs": "design", "release_horizon": "design", "action_level_loss": "design",
    "ActionLevelLoss": "design", "samples_needed": "design",
    "Mechanism": "mechanism", "RegistryMechanism": "mechanism",
    "KNOWN_PAIRS": "pairs", "Pair": "pairs", "candidate_pairs": "pairs", "known_pairs": "pairs",
    "AuditResult": "result",
    "audit": "runner", "audit_algorithm": "runner", "audit_all": "runner",
    "claims_table": "runner", "controls": "runner", "replace_rows": "runner",
    "event_audit": "testers", "exact_audit": "testers", "pair_privacy_loss": "scores",
    "ToyThreshold": "toys",
    "CounterMechanism": "whitebox", "InternalStatistics": "whitebox", "Stream": "whitebox",
    "stream_pairs": "whitebox",
}
"""Where each public name lives. They are imported on first use (PEP 562), so that importing a
light submodule (say, the external-program harness for its defaults) does not load SciPy."""


__getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())


__all__ = [
    "audit", "audit_algorithm", "audit_all", "claims_table", "controls", "replace_rows",
    "AuditResult", "Mechanism", "RegistryMechanism", "PolicyMechanism", "CallableMechanism",
    "CommandMechanism", "Pair", "candidate_pairs", "known_pairs",
    "KNOWN_PAIRS", "event_audit", "exact_audit", "pair_privacy_loss", "ToyThreshold",
    "CounterMechanism", "InternalStatistics", "Stream", "stream_pairs",
    "clopper_pearson_lower", "clopper_pearson_upper", "epsilon_lower_bound", "epsilon_estimate",
    "hoeffding_lower_bound", "max_attainable_bound",
    "designed_pairs", "release_horizon", "action_level_loss", "ActionLevelLoss", "samples_needed",
]

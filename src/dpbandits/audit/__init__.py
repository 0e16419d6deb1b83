"""Empirical privacy audits: neighbouring-sequence experiments with valid lower bounds on epsilon.

``audit_algorithm(name, epsilon=..., variant=...)`` audits a registered algorithm;
``audit(mechanism, pairs)`` any :class:`Mechanism` (third-party Python code and external programs
through :mod:`dpbandits.audit.adapters` and :mod:`dpbandits.audit.external`); ``audit_all`` every
registered algorithm and variant. Results are :class:`AuditResult` objects (JSON via
``to_json``). The statistics follow the audit recipes: selection and test samples, one-sided
Clopper-Pearson bounds, exact likelihood ratios where the algorithm exposes them.
"""

from .adapters import CallableMechanism, PolicyMechanism
from .confidence import (clopper_pearson_lower, clopper_pearson_upper, epsilon_estimate,
                         epsilon_lower_bound, hoeffding_lower_bound, max_attainable_bound)
from .external import CommandMechanism
from .mechanism import Mechanism, RegistryMechanism
from .pairs import KNOWN_PAIRS, Pair, candidate_pairs, known_pairs
from .result import AuditResult
from .runner import audit, audit_algorithm, audit_all, claims_table, controls
from .testers import event_audit, exact_audit, pair_privacy_loss
from .toys import ToyThreshold
from .whitebox import CounterMechanism, InternalStatistics, Stream, stream_pairs

__all__ = [
    "audit", "audit_algorithm", "audit_all", "claims_table", "controls",
    "AuditResult", "Mechanism", "RegistryMechanism", "PolicyMechanism", "CallableMechanism",
    "CommandMechanism", "Pair", "candidate_pairs", "known_pairs",
    "KNOWN_PAIRS", "event_audit", "exact_audit", "pair_privacy_loss", "ToyThreshold",
    "CounterMechanism", "InternalStatistics", "Stream", "stream_pairs",
    "clopper_pearson_lower", "clopper_pearson_upper", "epsilon_lower_bound", "epsilon_estimate",
    "hoeffding_lower_bound", "max_attainable_bound",
]

"""Brackets and verdicts: [audit lower bound, exact value, traced upper bound] beside a claim, and
the verdict it reads (:class:`Bracket`, :func:`bracket`, :func:`audit_bracket`,
:func:`claim_bracket`; docs/accountant.md)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable

from ..errors import DPBanditsError
from ..reference.privacy import Guarantee, PrivacyClaim
from ..reference.registry import canonical, declaration, get
from .composition import PROOF, Accounting
from .lockstep import _TOLERANCE
from .tracing import TRACE_SEEDS
from .upper import traced_upper


@dataclass(frozen=True)
class Bracket:
    """[audit lower bound, exact value where known, traced upper bound] beside the claim, with the
    upper bound's status (:data:`PROOF` or an estimate) and scope (K, T, table class)."""

    claimed: Guarantee | None
    lower: float | None
    exact: float | None
    upper: float
    upper_delta: float = 0.0
    notes: tuple[str, ...] = field(default=())
    status: str = PROOF
    scope: str = ""

    @property
    def verdict(self) -> str:
        """``defect`` (the lower bound exceeds the upper: one of the two is wrong), ``refuted``
        (the audit's lower bound or the exact value exceeds the claim), ``holds``
        (upper <= claim, a proof at the bracket's size), ``consistent`` (upper <= claim, an
        estimate: consistent with the accountant) or ``open``."""
        if self.claimed is None:
            return "non-private"
        if self.inverted:
            return "defect"
        eps = self.claimed.epsilon
        if (self.lower is not None and self.lower > eps) or (
                self.exact is not None and self.exact > eps * (1 + _TOLERANCE)):
            return "refuted"
        if self.upper <= eps and self.upper_delta <= self.claimed.delta:     # exact: 1 + 1e-12 > 1
            return "holds" if self.status == PROOF else "consistent"
        return "open"

    @property
    def inverted(self) -> bool:
        """The audit's lower bound (or the exact value) above the accountant's upper bound: one
        of the two is wrong, and no verdict is read from the bracket."""
        low = max([x for x in (self.lower, self.exact) if x is not None], default=None)
        return low is not None and low > self.upper * (1 + _TOLERANCE) + _TOLERANCE

    @property
    def gap(self) -> float:
        """upper - lower (the width of the bracket; the lower bound counts as 0 when absent)."""
        return self.upper - (self.lower or 0.0)

    def text(self) -> str:
        def fmt(x: float | None) -> str:
            return "-" if x is None else ("inf" if math.isinf(x) else f"{x:.3g}")
        by = ("the exact value" if self.exact is not None and self.exact > (self.claimed.epsilon
              if self.claimed else math.inf) * (1 + _TOLERANCE) and not (
              self.lower is not None and self.claimed and self.lower > self.claimed.epsilon)
              else "the audit")
        words = {"holds": "claim holds by the accountant",
                 "consistent": "claim consistent with the accountant",
                 "refuted": f"claim refuted by {by}",
                 "open": f"open: audit <= claim < accountant, gap {fmt(self.gap)}",
                 "non-private": "non-private",
                 "defect": "defect: the lower bound exceeds the accountant's upper bound, so "
                           "one of the two is wrong (no verdict; please report it)"}
        where = f" ({self.status}: {self.scope})" if self.scope and self.verdict != "non-private" else ""
        return f"[{fmt(self.lower)}, {fmt(self.exact)}, {fmt(self.upper)}] {words[self.verdict]}{where}"


def bracket(claim: PrivacyClaim, upper: Accounting, lower: float | None = None,
            exact: float | None = None) -> Bracket:
    """The bracket of a claim from the accountant's bound and, where known, the audit's."""
    return Bracket(claim.claimed, lower, exact, upper.epsilon, upper.delta,
                   status=upper.status, scope=upper.scope)


def _parse_label(label: str) -> tuple[str, str | None, dict[str, Any]]:
    """(name, variant, params) of an audit label such as ``dp-ucb-int[corrected] v=1.5``; words
    without ``=`` (a white-box audit's ``white-box mu_tilde``) are not parameters."""
    head, *tokens = label.split(" ")
    name, _, rest = head.partition("[")
    params: dict[str, Any] = {}
    for token in tokens:
        key, is_param, value = token.partition("=")
        if not is_param:
            continue
        try:
            params[key] = int(value)
        except ValueError:
            try:
                params[key] = float(value)
            except ValueError:
                params[key] = value
    return name, (rest.rstrip("]") or None), params


def audit_bracket(result: dict, epsilon: float | None = None,
                  seeds: Iterable[int] = TRACE_SEEDS) -> Bracket | None:
    """The bracket of one audit result (``AuditResult.to_dict()``, a row of audit-claims.json):
    the audit's lower bound and exact value, and the accountant's bound traced at the audit's
    algorithm, variant, parameters, K and T. ``epsilon`` is the algorithm's input (default: the
    claimed epsilon). None for mechanisms that are not registered algorithms or make no claim."""
    from ..reference.registry import ALGORITHMS

    name, variant, params = _parse_label(result["mechanism"])
    if name not in ALGORITHMS or result.get("claimed_epsilon") is None:
        return None
    epsilon = float(result["claimed_epsilon"]) if epsilon is None else float(epsilon)
    K, T = int(result["pair"]["K"]), int(result["pair"]["T"])
    delta = float(result.get("claimed_delta") or 0.0)
    upper = traced_upper(name, epsilon=epsilon, variant=variant, K=K, T=T, seeds=seeds,
                         delta=delta, params=params)
    claimed = Guarantee(float(result["claimed_epsilon"]), delta)
    exact = result.get("exact_epsilon")
    return Bracket(claimed, float(result["epsilon_lower_bound"]),
                   None if exact is None else float(exact), upper.epsilon, upper.delta,
                   status=upper.status, scope=upper.scope)


def claim_bracket(name: str, variant: str | None = None,
                  audit: str = "docs/data/audit-claims.json") -> Bracket | None:
    """The bracket of algorithm ``name``'s variant from the audit results file ``audit`` (the
    row of that variant; its preset epsilon where the audit used one)."""
    import json
    from pathlib import Path

    cls = get(name)
    variant = cls.default_variant if variant is None else variant
    for row in json.loads(Path(audit).read_text()):
        row_name, row_variant, _ = _parse_label(row["mechanism"])
        if row_name == canonical(name) and (row_variant or cls.default_variant) == variant:
            preset = declaration(row_name, "audit_preset")
            return audit_bracket(row, preset.epsilon if preset is not None else None)
    raise DPBanditsError(f"no audit result for {name} [{variant}] in {audit}")

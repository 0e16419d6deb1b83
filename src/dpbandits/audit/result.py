"""The result of an audit: a frozen object with everything needed to check or reproduce it.

Names keep bounds and estimates apart:

* ``epsilon_lower_bound``: a statistically valid lower bound on the mechanism's epsilon, at
  confidence ``1 - alpha`` with the stated correction ``hypotheses`` (Clopper-Pearson on a fresh
  test sample, event and pair chosen on a separate selection sample);
* ``certificate``: for mechanisms with exact trajectory probabilities, the largest |log-likelihood
  ratio| of a trajectory the implementation actually produced: a lower bound on epsilon that
  needs no confidence level (it is exact given the model);
* ``exact_epsilon``: the exact privacy loss of the chosen pair, computed from the model by
  enumerating the outcomes (not a sample statistic);
* ``delta_lower_bound``: a lower bound on delta at the claimed epsilon (Hoeffding, exact path);
* ``epsilon_estimate``: the plug-in estimate of the chosen event on the test sample: NOT a bound.

``verdict`` is ``violation`` only when a bound (``epsilon_lower_bound`` or ``certificate``, or
``delta_lower_bound`` for an (epsilon, delta) claim) exceeds the claim; otherwise ``consistent``,
with ``closeness`` = bound / claimed epsilon saying how close the audit came.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any

__all__ = ["AuditResult"]


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


@dataclass(frozen=True)
class AuditResult:
    """What one audit found; see the module docstring for the meaning of each bound."""

    mechanism: str
    claimed_epsilon: float | None
    claimed_delta: float
    relation: str
    method: str
    epsilon_lower_bound: float
    alpha: float
    hypotheses: int
    n_selection: int
    n_test: int
    event: str
    pair: dict
    counts: dict
    seconds: float
    epsilon_estimate: float = math.nan
    certificate: float | None = None
    exact_epsilon: float | None = None
    delta_lower_bound: float | None = None
    claim_status: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)
    backend: str = ""
    """The engine's backend that simulated the runs (``reference``, ``compiled``; empty for
    mechanisms that are not run by the engine)."""

    @property
    def confidence(self) -> float:
        return 1.0 - self.alpha

    @property
    def best_bound(self) -> float:
        """The larger of the sampled bound and the certificate."""
        return max(self.epsilon_lower_bound, self.certificate or 0.0)

    @property
    def verdict(self) -> str:
        if self.claimed_epsilon is None:
            return "non-private"
        if self.best_bound > self.claimed_epsilon * (1 + 1e-9):
            return "violation"
        if self.delta_lower_bound is not None and self.delta_lower_bound > self.claimed_delta:
            return "violation"
        return "consistent"

    @property
    def closeness(self) -> float | None:
        """Bound divided by the claimed epsilon (1 or more is a violation)."""
        if not self.claimed_epsilon:
            return None
        return self.best_bound / self.claimed_epsilon

    def summary(self) -> str:
        claim = ("no claim" if self.claimed_epsilon is None else
                 f"claim eps = {self.claimed_epsilon:g}" + (f", delta = {self.claimed_delta:g}"
                                                           if self.claimed_delta else ""))
        text = (f"{self.mechanism}: {claim}; eps lower bound {self.epsilon_lower_bound:.3f} "
                f"at {100 * self.confidence:g}% ({self.method}, m = {self.hypotheses})")
        if self.certificate is not None:
            text += f"; certificate {self.certificate:.3f}"
        if self.exact_epsilon is not None:
            text += f"; exact eps of the pair {self.exact_epsilon:.3f}"
        if self.delta_lower_bound is not None:
            text += f"; delta lower bound {self.delta_lower_bound:.2e}"
        return text + f" -> {self.verdict.upper()}"

    @classmethod
    def from_dict(cls, data: dict) -> "AuditResult":
        """The inverse of :meth:`to_dict` (derived keys such as ``verdict`` are recomputed)."""
        names = {f.name for f in fields(cls)}
        values = {}
        for key, value in data.items():
            if key not in names:
                continue
            if isinstance(value, str) and value in ("inf", "-inf", "nan") and key != "event":
                value = float(value)
            values[key] = value
        values["notes"] = tuple(values.get("notes", ()))
        return cls(**values)

    def to_dict(self) -> dict:
        out = asdict(self)
        out.update(verdict=self.verdict, confidence=self.confidence, closeness=self.closeness)
        return _clean(out)

    def to_json(self, **kwargs) -> str:
        return json.dumps(self.to_dict(), **kwargs)

"""Proof and counterexample side by side: an audit that starts from the accountant's finding.

``dpbandits audit ALGO --from-accountant`` (:func:`audit_from_accountant`) traces ALGO at the
audit's own K, T and epsilon (:func:`dpbandits.accountant.traced_upper`) and reads what the
accountant says of the claim:

* its bound is **above the claim** (a proof or an estimate): each row the accountant names
  whose loss exceeds the claimed epsilon (``Accounting.counterexamples``: up to three rows, the
  largest losses first, with their cells, the round, the releases or reads that cost the loss
  and their lines; the first of them when the bound exceeds the claim only in delta) becomes an
  audit pair
  (:func:`counterexample_pairs`), put **before** the default pairs (the designed pairs, the known
  worst cases, the generic candidates: what ``dpbandits audit ALGO`` would use). The audit
  chooses its pair and event on the selection sample as always and tests one event on a fresh
  sample, so the verdict keeps its meaning: a Clopper-Pearson lower bound at 1 - alpha with one
  hypothesis (m = 1; the pairs cost selection runs, not confidence). The default pairs stay
  because the accountant's row is where the *released statistics* lose most, not necessarily
  where the *actions* do; the result says which pair was chosen and where it came from.
* its bound is **a proof at or below the claim** for every table with entries in [0, 1]: no
  pair of neighbouring tables at this size can violate the claim, so nothing is audited
  (:attr:`FromAccountant.audited` is False; the command exits 0 and says so).
* its bound is **an estimate at or below the claim** (or a proof for the {0, 1} tables only,
  where a map with no interval rule was met), or the trace does not fit at this size: the accountant names
  no counterexample, and the default pairs are audited (said in the notes).

A pair from a counterexample changes the named row over the whole range, all 0 against all 1
(the accountant's own probe, +1 from 0 and -1 from 1), on a table that steers the algorithm
along the traced action sequence (reward 1 on the arms the sequence plays in each round, 0 on
the others). Where several rewards of the row reach the policy (full information, a matroid's
set) or an argmax release contains the row, the row is also tried at e_a against 1 - e_a (one
reward up, the others down: moving them all the same way leaves an argmax unchanged). Where a read of an unreleased value costs the loss (a leak), the read's outcome may
change anywhere in [0, 1], which the accountant's {0, 1} probe does not locate: the row is then
also tried at each of the ten values 0.05, 0.15, ..., 0.95 against 0 (any interval of width
more than 0.1 holds one of them). docs/accountant.md#from-a-finding-to-a-counterexample.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

from ..errors import DPBanditsError, check_epsilon, check_positive_int, check_seed
from ..reference.environments import Table
from ..reference.registry import canonical, get
from .mechanism import Mechanism, RegistryMechanism
from .result import AuditResult

__all__ = ["FromAccountant", "counterexample_pairs", "accountant_pairs", "audit_from_accountant",
           "PlantedMechanism", "SOURCE", "LEAK_VALUES"]

SOURCE = "pair from the accountant"
"""How the description of every pair built here begins (the audit's output names the source)."""

LEAK_VALUES = tuple(round((i + 0.5) / 10, 2) for i in range(10))
"""The values a leaked row is also tried at against 0: any interval of [0, 1] of width more
than 0.1 holds one of them."""


@dataclass(frozen=True)
class _ClassFactory:
    """The engine's factory of a policy class that is not registered (a planted change), built
    as the accountant builds it (``traced_upper(..., policy_class=cls)``)."""

    cls: type
    K: int
    epsilon: float | None
    variant: str | None
    T: int
    params: tuple[tuple[str, Any], ...] = ()

    def __call__(self, runs: int, rng: np.random.Generator):
        kwargs = dict(self.params, runs=runs, rng=rng, variant=self.variant, epsilon=self.epsilon)
        if self.cls.needs_horizon:
            kwargs["T"] = self.T
        return self.cls(self.K, **kwargs)


@dataclass
class PlantedMechanism(RegistryMechanism):
    """A registered algorithm's claim and label with another policy class run in its place (a
    planted change of the reference, as the accountant's tests trace it); the runs are the
    reference engine's."""

    policy_class: type | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.policy_class is not None:
            self.label = f"{self.label} ({self.policy_class.__name__})"

    def _job(self, table, n):
        factory, source, T, n = super()._job(table, n)
        if self.policy_class is not None:
            factory = _ClassFactory(self.policy_class, self.K, self.epsilon, self.variant,
                                    self.T or T, tuple(sorted(self.params.items())))
        return factory, source, T, n

    def exact_model(self):
        return None if self.policy_class is not None else super().exact_model()

    def worker_copy(self):
        return None if self.policy_class is not None else super().worker_copy()


def _steered(actions: tuple, K: int, T: int) -> np.ndarray:
    """A (T, K) table that pays 1 to the arms the traced sequence plays in each round (a set of
    base arms for a matroid) and 0 to the others; rounds beyond the sequence pay 0."""
    X = np.zeros((T, K))
    for t, a in enumerate(actions[:T]):
        X[t, np.atleast_1d(np.asarray(a, dtype=int))] = 1.0
    return X


def counterexample_pairs(counterexample, K: int, T: int, row_zero: bool = False,
                         contrast: bool = False) -> list:
    """The audit pairs of one accountant counterexample (module docstring): the named row all 0
    against all 1 on the steered table; with ``contrast`` (several rewards of the row reach the
    policy, or an argmax release contains it), also e_a against 1 - e_a for the arm a of the
    row's first named cell, where one reward rises while the others fall (moving every reward
    of a row the same way leaves an argmax or an order of the arms unchanged); for a leak, also
    the row at each of :data:`LEAK_VALUES` against 0. A row beyond T gives no pair; row 0
    changes the free row 0 of a policy that observes one."""
    from .pairs import Pair

    ce, row = counterexample, counterexample.row
    if row > T or (row == 0 and not row_zero):
        return []
    X = _steered(ce.actions, K, T)
    X0 = np.zeros(K) if row_zero else None
    where = ce.where()
    arm = ce.cells[0][1] if ce.cells else 0
    e = np.eye(K)[arm]
    levels = [(np.zeros(K), np.ones(K), "all 0 vs all 1")]
    if contrast or any(s.what == "argmax" for s in ce.steps):
        levels.append((e, 1.0 - e, f"e_{arm} vs 1 - e_{arm}"))
    if ce.leak:
        levels += [(np.full(K, v), np.zeros(K), f"all {v:g} vs all 0") for v in LEAK_VALUES]
    pairs = []
    for low, high, label in levels:
        if row == 0:
            D0, D1 = Table(X, X0=low), Table(X, X0=high)
        else:
            A, B = X.copy(), X.copy()
            A[row - 1], B[row - 1] = low, high
            D0, D1 = Table(A, X0=X0), Table(B, X0=X0)
        pairs.append(Pair(D0, D1, row, f"{SOURCE}: {where}; row {row} {label}, the other rows "
                                       f"along the traced actions"))
    return pairs


@dataclass
class FromAccountant:
    """What the accountant said at the audit's size, and the pairs it gave.

    ``audited`` is False when the accountant's bound is a proof at or below the claim (nothing
    to audit); ``notes`` are the lines the audit's result carries."""

    accounting: Any
    pairs: list = field(default_factory=list)
    audited: bool = True
    notes: tuple[str, ...] = ()

    @property
    def counterexamples(self) -> tuple:
        return () if self.accounting is None else tuple(self.accounting.counterexamples)


def accountant_pairs(name: str, *, K: int, T: int, epsilon: float, variant: str | None,
                     params: dict[str, Any], claimed, row_zero: bool = False,
                     policy_class: type | None = None) -> FromAccountant:
    """The accountant's bound at (K, T, epsilon) and, when it exceeds ``claimed`` (a
    :class:`~dpbandits.reference.privacy.Guarantee`), the pairs of its counterexamples."""
    from ..accountant import UNIT_TABLES, TooLargeToTrace, traced_upper

    try:
        bound = traced_upper(name, epsilon=epsilon, variant=variant, K=K, T=T,
                             delta=claimed.delta, params=params, policy_class=policy_class)
    except TooLargeToTrace as e:
        return FromAccountant(None, notes=(f"the accountant gives no bound at this size ({e}): "
                                           f"audited with the default pairs only",))
    eps = "inf" if math.isinf(bound.epsilon) else f"{bound.epsilon:.4g}"
    said = f"the accountant: eps <= {eps} ({bound.status}: {bound.scope})"
    above = (bound.epsilon > claimed.epsilon or bound.delta > claimed.delta)     # exact
    if not above and bound.proof and UNIT_TABLES in bound.tables:
        return FromAccountant(bound, audited=False, notes=(
            f"{said}: a proof at or below the claim {claimed}, so no pair of neighbouring "
            f"tables with entries in [0, 1] at K = {K}, T = {T} can violate it; no "
            f"counterexample, nothing audited",))
    if not above:
        what = ("a proof for the enumerated {0, 1} tables only" if bound.proof
                else "an estimate")
        return FromAccountant(bound, notes=(
            f"{said}: at or below the claim {claimed}, {what}, which names no "
            f"counterexample: audited with the default pairs only",))
    found = bound.counterexamples
    lockstep = ""
    if not found:       # a bound by the per-arm schedule names no rows: the lockstep traces do
        try:
            found = traced_upper(name, epsilon=epsilon, variant=variant, K=K, T=T,
                                 delta=claimed.delta, params=params, policy_class=policy_class,
                                 enumerate=False).counterexamples
            lockstep = " (rows named by the lockstep traces at this size)"
        except TooLargeToTrace:
            found = ()
    named = [ce for ce in found
             if ce.loss > claimed.epsilon] or list(found[:1])
    contrast = get(name).feedback != "bandit"
    pairs = [p for ce in named for p in counterexample_pairs(ce, K, T, row_zero, contrast)]
    notes = [f"{said}: above the claim {claimed}{lockstep}"]
    notes += [f"{SOURCE}: {ce.summary()}" for ce in named]
    notes.append(f"{len(pairs)} pair{'s' if len(pairs) != 1 else ''} from the accountant "
                 f"before the default pairs; the pair and event are chosen on the selection "
                 f"sample and one event is tested (m = 1)")
    return FromAccountant(bound, pairs, notes=tuple(notes))


def audit_from_accountant(name: str, *, epsilon: float = 1.0, variant: str | None = None,
                          K: int | None = None, T: int | None = None,
                          params: dict[str, Any] | None = None, samples: int = 50_000,
                          alpha: float = 0.05, seed: int = 0, workers: int = 1, client=None,
                          progress: Callable[[str], None] | None = None,
                          backend: str = "auto", policy_class: type | None = None,
                          use: str = "both") -> tuple[AuditResult | None, FromAccountant]:
    """``dpbandits audit ALGO --from-accountant`` (module docstring): (the audit's result, or
    None when the accountant's proof leaves nothing to audit; what the accountant said and gave).

    K, T, the default pairs and the selection sample are those of
    :func:`dpbandits.audit.runner.audit_algorithm`. ``policy_class`` runs a planted change of
    ``name`` in its place (traced and audited alike). ``use`` is ``both`` (the command's: the
    accountant's pairs, then the default pairs), ``accountant`` or ``default`` (one family
    alone, to measure what each finds: ``benchmarks/from_accountant.py``)."""
    from ..reference.engine import check_backend
    from .design import DESIGNED_ARMS, designed_horizon, designed_pairs, designed_selection
    from .pairs import DEFAULT_ARMS, candidate_pairs, known_pairs
    from .runner import DEFAULT_HORIZON, audit

    check_backend(backend)
    if use not in ("both", "accountant", "default"):
        raise DPBanditsError(f"use must be 'both', 'accountant' or 'default', got {use!r}")
    name = canonical(name)
    epsilon, seed = check_epsilon(epsilon), check_seed(seed)
    if not get(name).private:
        raise DPBanditsError(f"{name} makes no privacy claim: the accountant has nothing to "
                             f"refute")
    params = dict(params or {})
    K = K or DESIGNED_ARMS.get(name) or DEFAULT_ARMS.get(name, 3)
    T = check_positive_int(T or (designed_horizon(name, K, epsilon) if name in DESIGNED_ARMS
                                 else None) or DEFAULT_HORIZON, "T")
    mechanism: Mechanism = PlantedMechanism(name, K, epsilon, variant, params, T=T,
                                            workers=workers, client=client, backend=backend,
                                            policy_class=policy_class)
    row_zero = bool(getattr(mechanism._policy, "observes_round_zero", False))
    found = accountant_pairs(name, K=K, T=T, epsilon=epsilon, variant=mechanism.variant,
                             params=params, claimed=mechanism.claimed, row_zero=row_zero,
                             policy_class=policy_class)
    if not found.audited:
        return None, found
    designed = designed_pairs(name, K, epsilon, variant, T)
    n_selection = designed_selection(name, samples) if designed else None
    if use == "accountant":
        defaults = []
    elif designed:
        defaults = designed + known_pairs(name, K, T)
    else:
        relation = mechanism.claimed.relation if mechanism.claimed else None
        defaults = known_pairs(name, K, T) + candidate_pairs(
            K, T, boundaries=mechanism.epoch_boundaries(T), row_zero=row_zero,
            **({"relation": relation} if relation is not None else {}))
    pairs = ([] if use == "default" else found.pairs) + defaults
    if mechanism.feedback == "semi":
        pairs = [p for p in pairs if p.D0.X0 is not None] or pairs
    if not pairs:
        raise DPBanditsError(f"the accountant's rows lie beyond T = {T} and no default pair "
                             f"was asked for: nothing to audit")
    result = audit(mechanism, pairs, samples=samples, alpha=alpha, seed=seed, T=T,
                   progress=progress, n_selection=n_selection)
    chosen = str(result.pair.get("description", ""))
    source = ("the chosen pair is from the accountant" if chosen.startswith(SOURCE) else
              "the chosen pair is a default pair" + (
                  " (the accountant's pairs were tried on the selection sample too)"
                  if found.pairs else ""))
    used = sorted(getattr(mechanism, "backends_used", ()))
    result = replace(result, notes=tuple(result.notes) + found.notes + (source,))
    return (replace(result, backend=",".join(used)) if used else result), found

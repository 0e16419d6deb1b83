"""White-box audits: test the noisy statistics a mechanism releases internally, not its actions.

Actions are a lossy view of the noisy sums behind them, so an audit of the sums themselves needs
far fewer runs to see a broken budget. Two kinds of white-box mechanism:

* :class:`CounterMechanism`: one of the continual counters of :mod:`dpbandits.reference.mechanisms`
  (logarithmic, binary, hybrid with the paper's or Chan et al.'s budget split) on a stream of
  items in [0, 1] (a table with one column); the output of a run is its release after every item.
  Neighbouring streams differ in one item.
* :class:`InternalStatistics`: a registered bandit algorithm run on a table; the output of a run
  is the statistic it releases (its private means or counter values, named in
  :data:`WHITE_BOX_STATISTICS`) after every round, flattened to T * K numbers.

Both outputs are real-valued; the event tester scores them with a logistic model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import DPBanditsError, check_epsilon, check_positive_int
from ..reference.mechanisms import BinaryCounter, HybridCounter, LogarithmicCounter
from ..reference.privacy import Guarantee
from ..reference.registry import Declared, make
from .mechanism import Mechanism, as_table
from .pairs import Pair

__all__ = ["CounterMechanism", "InternalStatistics", "WHITE_BOX_STATISTICS", "Stream", "stream_pairs"]

WHITE_BOX_STATISTICS: Mapping[str, str] = Declared("white_box_statistic")
"""Registered algorithm -> the attribute (dotted path) holding the noisy statistic it releases:
each algorithm's ``white_box_statistic`` declaration."""


@dataclass(frozen=True, eq=False)
class Stream:
    """A stream of items in [0, 1] for a counter: the one-column analogue of a reward table."""

    X: np.ndarray
    X0: None = None

    def __post_init__(self) -> None:
        X = np.asarray(self.X, dtype=float).reshape(-1, 1)
        if X.size == 0 or not (np.all(X >= 0) and np.all(X <= 1)):
            raise DPBanditsError("a stream must hold at least one item, all in [0, 1] with no NaN")
        object.__setattr__(self, "X", X)

    @property
    def T(self) -> int:
        return int(self.X.shape[0])

    @property
    def K(self) -> int:
        return 1


class CounterMechanism(Mechanism):
    """A continual counter as a mechanism: stream of n items -> n noisy releases.

    ``counter``: ``hybrid`` (``split`` ``paper``: eps_L = eps_B = eps, claimed eps but 2 eps-DP;
    ``chan``: eps/2 + eps/2, eps-DP), ``binary`` (horizon = stream length) or ``logarithmic``.
    """

    K = 1
    feedback = "stream"

    def __init__(self, counter: str = "hybrid", epsilon: float = 1.0, split: str = "paper") -> None:
        if counter not in ("hybrid", "binary", "logarithmic"):
            raise DPBanditsError(f"unknown counter {counter!r}; choose hybrid, binary or logarithmic")
        self.counter, self.split = counter, split
        self.epsilon = check_epsilon(epsilon)
        self.claimed = Guarantee(self.epsilon)
        self.label = f"{counter}-counter" + (f"[{split}]" if counter == "hybrid" else "")

    def sample(self, table, n: int, seed: int) -> np.ndarray:
        X = table.X if isinstance(table, Stream) else Stream(np.asarray(table)).X
        n = check_positive_int(n, "n")
        rng = np.random.default_rng(seed)
        items = X[:, 0]
        if self.counter == "hybrid":
            counter = HybridCounter(n, self.epsilon, rng, split=self.split)
        elif self.counter == "binary":
            counter = BinaryCounter(n, self.epsilon, items.size, rng)
        else:
            counter = LogarithmicCounter(n, self.epsilon, rng)
        every = np.arange(n)
        releases = np.empty((n, items.size))
        for i, x in enumerate(items):
            counter.insert(every, np.full(n, x))
            releases[:, i] = counter.value
        return releases


def stream_pairs(length: int = 8, base: float = 0.5) -> list[Pair]:
    """Pairs of streams of ``length`` items equal to ``base`` but at one position, 0 vs 1."""
    length = check_positive_int(length, "length")
    X = np.full((length, 1), base)
    pairs = []
    for s in range(1, length + 1):
        X0, X1 = X.copy(), X.copy()
        X0[s - 1], X1[s - 1] = 0.0, 1.0
        pairs.append(Pair(Stream(X0), Stream(X1), s, f"item {s}: 0 vs 1"))
    return pairs


def _attribute(obj: Any, path: str) -> np.ndarray:
    for part in path.split("."):
        obj = getattr(obj, part)
    return np.asarray(obj, dtype=float)


@dataclass
class InternalStatistics(Mechanism):
    """A registered bandit algorithm whose released statistic is recorded after every round."""

    name: str
    K: int
    epsilon: float = 1.0
    variant: str | None = None
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.name not in WHITE_BOX_STATISTICS:
            raise DPBanditsError(f"no white-box statistic is known for {self.name!r}; known: "
                                 f"{sorted(WHITE_BOX_STATISTICS)}")
        self.statistic = WHITE_BOX_STATISTICS[self.name]
        policy = make(self.name, self.K, epsilon=self.epsilon, rng=0, variant=self.variant, T=1000,
                      **self.params)
        if policy.feedback != "bandit":
            raise DPBanditsError("white-box statistics are recorded for bandit algorithms only")
        self.variant = policy.variant
        self.claim = policy.claim
        self.claimed = self.claim.claimed
        self.label = f"{self.name}[{self.variant}] white-box {self.statistic}"

    def sample(self, table, n: int, seed: int) -> np.ndarray:
        X = as_table(table).X
        T = X.shape[0]
        policy = make(self.name, self.K, epsilon=self.epsilon, runs=check_positive_int(n, "n"),
                      rng=np.random.default_rng(seed), variant=self.variant, T=T, **self.params)
        policy.validate_feedback = False
        out = np.empty((n, T, self.K))
        for t in range(1, T + 1):
            actions = policy.act(t)
            policy.observe(t, actions, X[t - 1, actions])
            out[:, t - 1] = _attribute(policy, self.statistic).reshape(n, self.K)
        return out.reshape(n, T * self.K)

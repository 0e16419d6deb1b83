"""Reward sources: stochastic environments, fixed tables, and the papers' named settings.

A reward source tells the engine the reward of each run in each round. Two shapes exist:

* a **stochastic environment** (:class:`Bernoulli`, :class:`BetaArms`) draws fresh, independent
  rewards for every run (the regret shape). Arms are independent, so in the bandit setting only
  the pulled arm's reward is drawn: its law is the same as that coordinate of a full row.
* a **fixed table** (:class:`Table`) gives every run the same reward table ``X`` of shape (T, K)
  (the audit shape: the papers' privacy definitions condition on a fixed input).

``rewards(rng, t, actions)`` returns the obtained rewards, shape (R,); ``rows(rng, t, R)`` returns
whole reward vectors, shape (R, K), for full information. ``t`` is the 1-based round.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import DPBanditsError, check_means, check_positive_int, check_table

__all__ = [
    "RewardSource",
    "Bernoulli",
    "BetaArms",
    "Table",
    "Deterministic",
    "rewards_from_losses",
    "lower_bound_instance",
    "cyclic_instance",
    "Setting",
    "SETTINGS",
    "get_setting",
    "as_source",
]


class RewardSource:
    """Base class of reward sources. ``means`` are the arm means used for regret."""

    means: np.ndarray

    @property
    def K(self) -> int:
        return int(self.means.shape[0])

    @property
    def mu_star(self) -> float:
        """The largest arm mean."""
        return float(self.means.max())

    @property
    def gaps(self) -> np.ndarray:
        """Delta_a = mu_star - mu_a for every arm."""
        return self.mu_star - self.means

    def rewards(self, rng: np.random.Generator, t: int, actions: np.ndarray) -> np.ndarray:
        """Rewards of the pulled arms in round ``t``, shape (R,)."""
        rows = self.rows(rng, t, actions.shape[0])
        return rows[np.arange(actions.shape[0]), actions]

    def rows(self, rng: np.random.Generator, t: int, R: int) -> np.ndarray:
        """Whole reward vectors of round ``t`` for ``R`` runs, shape (R, K)."""
        raise NotImplementedError

    def table(self, T: int, rng: np.random.Generator) -> np.ndarray:
        """Draw one reward table of shape (T, K)."""
        T = check_positive_int(T, "T")
        return np.stack([self.rows(rng, t, 1)[0] for t in range(1, T + 1)])


@dataclass(frozen=True, eq=False)
class Bernoulli(RewardSource):
    """Independent Bernoulli(mu_a) arms."""

    means: np.ndarray

    def __post_init__(self) -> None:
        object.__setattr__(self, "means", check_means(self.means))

    def rewards(self, rng: np.random.Generator, t: int, actions: np.ndarray) -> np.ndarray:
        return (rng.random(actions.shape[0]) < self.means[actions]).astype(float)

    def rows(self, rng: np.random.Generator, t: int, R: int) -> np.ndarray:
        return (rng.random((R, self.K)) < self.means).astype(float)

    def table(self, T: int, rng: np.random.Generator) -> np.ndarray:
        T = check_positive_int(T, "T")
        return (rng.random((T, self.K)) < self.means).astype(float)

    def __repr__(self) -> str:
        return f"Bernoulli(means={self.means.tolist()})"


@dataclass(frozen=True, eq=False)
class BetaArms(RewardSource):
    """Independent Beta(alpha_a, beta_a) arms, rewards in [0, 1]."""

    alpha: np.ndarray
    beta: np.ndarray
    means: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        alpha = np.asarray(self.alpha, dtype=float)
        beta = np.asarray(self.beta, dtype=float)
        if alpha.shape != beta.shape or alpha.ndim != 1 or alpha.size < 2:
            raise DPBanditsError("alpha and beta must be vectors of the same length K >= 2")
        if not (np.all(alpha > 0) and np.all(beta > 0)):
            raise DPBanditsError("alpha and beta must be > 0")
        object.__setattr__(self, "alpha", alpha)
        object.__setattr__(self, "beta", beta)
        object.__setattr__(self, "means", alpha / (alpha + beta))

    def rewards(self, rng: np.random.Generator, t: int, actions: np.ndarray) -> np.ndarray:
        return rng.beta(self.alpha[actions], self.beta[actions])

    def rows(self, rng: np.random.Generator, t: int, R: int) -> np.ndarray:
        return rng.beta(self.alpha, self.beta, size=(R, self.K))

    def __repr__(self) -> str:
        return f"BetaArms(alpha={self.alpha.tolist()}, beta={self.beta.tolist()})"


@dataclass(frozen=True, eq=False)
class Table(RewardSource):
    """One fixed reward table shared by every run (the audit shape).

    ``means`` default to the column means of the table; pass the generating means to measure
    pseudo-regret against them instead. ``X0`` is an optional row 0 (shape (K,)), the free
    observation of every arm that the matroid algorithms make before round 1.
    """

    X: np.ndarray
    means: np.ndarray = None  # type: ignore[assignment]
    X0: np.ndarray | None = None

    def __post_init__(self) -> None:
        X = check_table(self.X, name="table")
        object.__setattr__(self, "X", X)
        if self.X0 is not None:
            X0 = check_table(np.asarray(self.X0, dtype=float)[None, :], name="row 0")[0]
            if X0.shape != (X.shape[1],):
                raise DPBanditsError(f"row 0 must have K = {X.shape[1]} entries, got {X0.shape}")
            object.__setattr__(self, "X0", X0)
        means = X.mean(axis=0) if self.means is None else check_means(self.means)
        if means.shape != (X.shape[1],):
            raise DPBanditsError(f"means must have K = {X.shape[1]} entries, got {means.shape}")
        object.__setattr__(self, "means", means)

    @property
    def T(self) -> int:
        return int(self.X.shape[0])

    def _row(self, t: int) -> np.ndarray:
        if t == 0:
            if self.X0 is None:
                raise DPBanditsError("this policy observes a row 0 before round 1: give the table X0")
            return self.X0
        if not 1 <= t <= self.X.shape[0]:
            raise DPBanditsError(f"round t = {t} is beyond the table's horizon T = {self.X.shape[0]}")
        return self.X[t - 1]

    def rewards(self, rng: np.random.Generator, t: int, actions: np.ndarray) -> np.ndarray:
        return self._row(t)[actions]

    def rows(self, rng: np.random.Generator, t: int, R: int) -> np.ndarray:
        return np.broadcast_to(self._row(t), (R, self.X.shape[1]))

    def table(self, T: int, rng: np.random.Generator) -> np.ndarray:
        if T > self.X.shape[0]:
            raise DPBanditsError(f"T = {T} exceeds the table's horizon {self.X.shape[0]}")
        return self.X[:T].copy()


@dataclass(frozen=True, eq=False)
class Deterministic(RewardSource):
    """Every round's reward vector is ``means`` (Wu and Wang's deterministic setting, Sec. 4).

    Wu and Wang write losses: ``Deterministic.from_losses(mu)`` holds the rewards ``1 - mu``.
    """

    means: np.ndarray

    def __post_init__(self) -> None:
        object.__setattr__(self, "means", check_means(self.means))

    @classmethod
    def from_losses(cls, losses) -> "Deterministic":
        return cls(1.0 - check_means(losses, "losses"))

    def rewards(self, rng: np.random.Generator, t: int, actions: np.ndarray) -> np.ndarray:
        return self.means[actions]

    def rows(self, rng: np.random.Generator, t: int, R: int) -> np.ndarray:
        return np.broadcast_to(self.means, (R, self.K))

    def table(self, T: int, rng: np.random.Generator) -> np.ndarray:
        return np.tile(self.means, (check_positive_int(T, "T"), 1))

    def __repr__(self) -> str:
        return f"Deterministic(means={self.means.tolist()})"


def rewards_from_losses(losses) -> np.ndarray:
    """The reward table 1 - L of a loss table L (T, K) in [0, 1] (Wu & Wang, Sec. 2).

    Report-noisy-max on reward sums picks the same action as on negated loss sums, and gaps
    and regret are unchanged, so loss-based papers run on the reward engine through this map.
    """
    return 1.0 - check_table(losses, name="loss table")


def lower_bound_instance(K: int, Delta: float, j: int = 1) -> Bernoulli:
    """Theorem 12 of Hu, Huang, Mehta & Hegde (journal version, Thm 12): the instance P_j.

    K independent Bernoulli arms with mean 1/2 + Delta for arm j (1-based) and 1/2 for the others;
    every suboptimal gap is Delta. The theorem needs Delta in (0, 1/4) and K >= 4.
    """
    K = check_positive_int(K, "K", minimum=4)
    if not 0 < Delta < 0.25:
        raise DPBanditsError(f"Delta must lie in (0, 1/4) for Theorem 12, got {Delta}")
    if not 1 <= j <= K:
        raise DPBanditsError(f"j must be an action in 1..{K}, got {j}")
    means = np.full(K, 0.5)
    means[j - 1] += Delta
    return Bernoulli(means)


def cyclic_instance(K: int, Delta: float, l: int = 1) -> Deterministic:
    """Theorem 3 of Wu and Wang (App. E): the deterministic instance P^(l).

    Losses mu_l = 0, mu_(l-1) = mu_(l+1) = Delta (indices cyclic), 1 elsewhere; as rewards 1 - mu.
    The proof needs K >= 6 and Delta in (0, 1].
    """
    K = check_positive_int(K, "K", minimum=6)
    if not 0 < Delta <= 1:
        raise DPBanditsError(f"Delta must lie in (0, 1], got {Delta}")
    if not 1 <= l <= K:
        raise DPBanditsError(f"l must be an action in 1..{K}, got {l}")
    losses = np.ones(K)
    losses[l - 1] = 0.0
    losses[(l - 2) % K] = losses[l % K] = Delta
    return Deterministic.from_losses(losses)


@dataclass(frozen=True)
class Setting:
    """A named experiment setting of one of the papers."""

    name: str
    means: tuple[float, ...]
    horizon: int
    epsilons: tuple[float, ...]
    runs: int
    source: str
    note: str = ""
    law: str = "bernoulli"
    """``bernoulli`` (independent arms) or ``deterministic`` (every row equals ``means``)."""

    def environment(self) -> RewardSource:
        """The setting's environment (see each paper's experiments section)."""
        if self.law == "deterministic":
            return Deterministic(np.array(self.means))
        return Bernoulli(np.array(self.means))

    @property
    def K(self) -> int:
        return len(self.means)


SETTINGS: dict[str, Setting] = {s.name: s for s in [
    Setting("tossou2016-2arms", (0.9, 0.6), 100_000, (0.1, 1.0), 100,
            "Tossou & Dimitrakakis (AAAI 2016), Sec. 4, scenario 1, Fig. 2(a-b)"),
    Setting("tossou2016-10arms", (0.1, 0.1, 0.1, 0.1, 0.2, 0.55, 0.1, 0.1, 0.1, 0.1), 100_000,
            (0.1, 1.0), 100,
            "Tossou & Dimitrakakis (AAAI 2016), Sec. 4, scenario 2, Fig. 2(c-d)",
            "arm positions are not given in the paper; this order is our reading, docs/errata.md#td-arm-order"),
    Setting("hu2021-setting1", (0.75, 0.70, 0.70, 0.70, 0.70), 2 ** 22,
            (0.1, 0.25, 0.5, 1.0, 8.0, 64.0, 128.0), 15,
            "Hu, Huang & Mehta (arXiv:2102.07929), Sec. 6, setting 1, Figs. 1-5, 9"),
    Setting("hu2021-setting2", (0.75, 0.625, 0.5, 0.375, 0.25), 2 ** 22,
            (0.1, 0.25, 0.5, 1.0, 8.0, 64.0, 128.0), 15,
            "Hu, Huang & Mehta (arXiv:2102.07929), Sec. 6, setting 2, Figs. 6-8, 10-11"),
    Setting("hu2021-setting3", (0.75, 0.15, 0.15, 0.15, 0.15), 2 ** 22,
            (0.1, 0.25, 0.5, 1.0, 8.0, 64.0, 128.0), 15,
            "Hu, Huang & Mehta (arXiv:2102.07929), App. I.3, setting 3, Fig. 12"),
    Setting("hu-journal-setting1", (0.75, 0.625, 0.5, 0.375, 0.25), 1_000_000,
            (0.25, 0.5, 1.0), 20,
            "Hu, Huang, Mehta & Hegde (arXiv:2102.07929v3), Sec. 6, setting 1, Fig. 1"),
    Setting("hu-journal-setting2", (0.5, 0.4, 0.4, 0.4, 0.4), 1_000_000,
            (0.25, 0.5, 1.0), 20,
            "Hu, Huang, Mehta & Hegde (arXiv:2102.07929v3), Sec. 6, setting 2, Fig. 2"),
    # Full information. The papers run no full-information experiments; these are their
    # lower-bound instances and the deterministic examples of Wu & Wang, with rewards = 1 - losses.
    Setting("hu-journal-thm12", tuple(lower_bound_instance(10, 0.1).means), 100_000,
            (0.25, 0.5, 1.0), 20,
            "Hu, Huang, Mehta & Hegde (arXiv:2102.07929v3), Theorem 12: instance P_1, K = 10, "
            "Delta = 0.1"),
    Setting("wu-wang-thm3", tuple(cyclic_instance(8, 0.05).means), 2 ** 16,
            (0.05, 0.2, 1.0), 20,
            "Wu & Wang (arXiv:2502.10997), Theorem 3: cyclic instance P^(1), K = 8, "
            "Delta_min = 0.05 (the hard instance of Wu & Wang's Thm 3)", law="deterministic"),
    Setting("wu-wang-deterministic", (1.0, 0.5, 0.0), 10, (1.0,), 20,
            "Wu & Wang (arXiv:2502.10997), deterministic setting (Sec. 4); losses "
            "(0, 0.5, 1)", law="deterministic"),
]}


def get_setting(name: str) -> Setting:
    """Look up a named setting; the error lists the known names."""
    try:
        return SETTINGS[name]
    except KeyError:
        known = ", ".join(sorted(SETTINGS))
        raise DPBanditsError(f"unknown setting {name!r}; known settings: {known}") from None


def as_source(source: RewardSource | np.ndarray | str) -> RewardSource:
    """Accept a reward source, a fixed (T, K) table, or a setting name."""
    if isinstance(source, RewardSource):
        return source
    if isinstance(source, str):
        return get_setting(source).environment()
    return Table(np.asarray(source))

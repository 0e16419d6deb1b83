"""Bounds the papers cite but do not prove: the results the papers quote from earlier work.

Sources: Tossou & Dimitrakakis, App. B (UCB1, Auer, Cesa-Bianchi & Fischer 2002, Theorem 1, explicit),
Hu, Huang & Mehta (2021), Sec. 1 and Hu et al. (journal), Sec. 1 (Shariff & Sheffet 2018 lower bound; Sajed &
Sheffet 2019, DP-SE; Tossou & Dimitrakakis 2016's claimed rate), all O(.)/Omega(.) only except
UCB1. Order-only bounds carry unit constants (``constants="order"``) and are used for their rates
(symbolic checks, plots of shape), never held against a simulation.
"""

from __future__ import annotations

import sympy as sp

from .core import Bound, Delta, K, T, epsilon

__all__ = ["ucb1_auer", "pure_dp_bandits", "shariff_sheffet_lower", "dp_se_dependent", "dp_se_independent",
           "tossou2015_claimed", "bounds"]


def ucb1_auer() -> Bound:
    """UCB1, Auer et al. (2002), Theorem 1: R(T) <= sum_j 8 ln T / Delta_j + (1 + pi^2/3) Delta_j.

    Explicit (paper's constants), for rewards in [0, 1], any T >= 1 (anytime).
    """
    return Bound(
        key="prior.ucb1", title="UCB1 regret (Auer, Cesa-Bianchi & Fischer 2002, Theorem 1)",
        source="Auer, Cesa-Bianchi & Fischer, Machine Learning 47 (2002), Thm 1; Tossou & Dimitrakakis, App. B",
        kind="upper", quantity="expected pseudo-regret R(T)", constants="paper",
        per_arm=8 * sp.log(T) / Delta + (1 + sp.pi ** 2 / 3) * Delta,
        condition=sp.Ge(T, 1), algorithms=("ucb1",), order=sp.log(T) / Delta)


def pure_dp_bandits() -> tuple[str, ...]:
    """The registered bandit algorithms whose default variant is proved epsilon-DP with no
    delta (the ``proven`` guarantee of its privacy claim, read at epsilon = 1, K = 2, T = 100):
    those a lower bound on every epsilon-DP bandit algorithm is about. Read from the registry,
    so a new algorithm is listed by its claim, not by a line here."""
    from ..reference.registry import ALGORITHMS, get, make

    found = []
    for name in ALGORITHMS:
        cls = get(name)
        if cls.feedback != "bandit" or not cls.private:
            continue
        proven = make(name, 2, epsilon=1.0, rng=0, T=100).claim.proven
        if proven is not None and proven.delta == 0:
            found.append(name)
    return tuple(found)


def shariff_sheffet_lower() -> Bound:
    """Shariff & Sheffet (2018): every epsilon-DP bandit algorithm has regret
    Omega(sum_j log T / Delta_j + K log T / epsilon). Order only (unit constants). It is about
    every registered algorithm of :func:`pure_dp_bandits`."""
    return Bound(
        key="prior.shariff-sheffet-lower", title="epsilon-DP bandit lower bound (Shariff & Sheffet 2018)",
        source="Shariff & Sheffet, NeurIPS 2018; Hu, Huang & Mehta (2021), Sec. 1, Hu et al. (journal), Sec. 1",
        kind="lower", quantity="expected pseudo-regret R(T)", constants="order",
        rest=K * sp.log(T) / epsilon, per_arm=sp.log(T) / Delta,
        algorithms=pure_dp_bandits(),
        order=sp.log(T) * (1 / Delta + K / epsilon))


def dp_se_dependent() -> Bound:
    """DP-SE (Sajed & Sheffet 2019): O(sum_j log T / Delta_j + K log T / epsilon). Order only."""
    return Bound(
        key="prior.dp-se", title="DP-SE instance-dependent regret (Sajed & Sheffet 2019)",
        source="Sajed & Sheffet, ICML 2019; Hu, Huang & Mehta (2021), Sec. 1", kind="upper",
        quantity="expected pseudo-regret R(T)", constants="order",
        rest=K * sp.log(T) / epsilon, per_arm=sp.log(T) / Delta, algorithms=("dp-se",),
        order=sp.log(T) * (1 / Delta + K / epsilon))


def dp_se_independent() -> Bound:
    """DP-SE problem-independent regret O(sqrt(K T log T) + K log T / epsilon). Order only."""
    return Bound(
        key="prior.dp-se-independent", title="DP-SE problem-independent regret (Sajed & Sheffet 2019)",
        source="Sajed & Sheffet, ICML 2019; Hu, Huang & Mehta (2021), Sec. 1", kind="upper",
        quantity="worst-case expected pseudo-regret", constants="order",
        rest=sp.sqrt(K * T * sp.log(T)) + K * sp.log(T) / epsilon, algorithms=("dp-se",),
        order=sp.sqrt(K * T * sp.log(T)) + K * sp.log(T) / epsilon)


def tossou2015_claimed() -> Bound:
    """The rate Tossou & Dimitrakakis claimed for the hybrid-mechanism UCB (disputed by later work):
    O(K log T / Delta + K log T / epsilon * log(log T / (epsilon Delta))). Order only."""
    rate = sp.log(T) / Delta + sp.log(T) / epsilon * sp.log(sp.log(T) / (epsilon * Delta))
    return Bound(
        key="prior.tossou-claimed", title="claimed DP-UCB-BOUND rate (Tossou & Dimitrakakis)",
        source="Tossou & Dimitrakakis, AAAI 2016, Sec. 3.1 (prose); Hu, Huang & Mehta (2021), Sec. 1",
        kind="upper", quantity="expected pseudo-regret R(T)", constants="order", per_arm=rate,
        algorithms=("dp-ucb-bound",), order=rate)


def bounds() -> list[Bound]:
    return [ucb1_auer(), shariff_sheffet_lower(), dp_se_dependent(), dp_se_independent(),
            tossou2015_claimed()]

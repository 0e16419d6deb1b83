"""Hu, Huang & Mehta, "Near-Optimal Algorithms for Private Online Learning in a Stochastic
Environment" (arXiv:2102.07929): Figs. 1-12, Sec. 6 and Appendix I.

Sec. 6: "We set T = 2 x 2^21 and each plot is an average of 15 independent runs. We set
beta = 1/T in DP-SE", epsilon = 0.10, 0.25, 0.5, 1, 8, 64, 128, K = 5; mean reward settings 1
and 2 (Sec. 6) and 3 (App. I.3). The text states no axis scales; the figures plot regret against
rounds and final regret against epsilon.
"""

from __future__ import annotations

from ..claims import (below_bound, both, flat_in_epsilon, lower_than, non_increasing_in_epsilon,
                      within_factor)
from ..experiment import Claim, Experiment, Line

PAPER = "Hu, Huang & Mehta (arXiv:2102.07929)"
LINES = (Line("anytime-lazy-ucb", "anytime-lazy-ucb"), Line("hybrid-ucb", "hybrid-ucb", variant="paper"),
         Line("dp-se", "dp-se"))
SIZES = {"tiny": (256, 3), "small": (2 ** 14, 8), "default": (2 ** 18, 15), "full": (2 ** 22, 15)}
EPSILONS = (0.1, 0.25, 0.5, 1.0, 8.0, 64.0, 128.0)
PAPER_SIZE = ("T = 2 x 2^21, 15 independent runs, epsilon = 0.10, 0.25, 0.5, 1, 8, 64, 128 "
              "(Sec. 6)")
NOTE = "Bernoulli rewards (the paper does not say); DP-SE with beta = 1/T (Sec. 6)."


def _time(fig: str, setting: int, epsilons: tuple[float, ...], figure: str | None = None) -> Experiment:
    claims = [Claim("Anytime-Lazy-UCB's regret stays below its bound (Theorem 3)",
                    below_bound("anytime-lazy-ucb", "hu2021.thm3"))]
    small = tuple(e for e in epsilons if e <= 1)
    large = tuple(e for e in epsilons if e >= 8)
    if small:
        claims += [Claim("at small epsilon Hybrid-UCB does not perform well: its regret exceeds "
                         "Anytime-Lazy-UCB's and DP-SE's (Sec. 6)",
                         both(lower_than("anytime-lazy-ucb", ("hybrid-ucb",), small),
                              lower_than("dp-se", ("hybrid-ucb",), small)),
                         "'does not perform well' read as: final regret above both other curves"),
                   Claim("at small epsilon Anytime-Lazy-UCB is competitive with DP-SE (Sec. 6)",
                         within_factor("anytime-lazy-ucb", "dp-se", 3.0, small),
                         "'competitive' read as: mean final regret within a factor 3 either way, "
                         "an equivalence margin wide enough for the two algorithms' different "
                         "constants and narrow enough to fail for an order-of-magnitude gap")]
    if large:
        claims.append(Claim("at large epsilon Hybrid-UCB starts performing well (Sec. 6)",
                            within_factor("hybrid-ucb", "anytime-lazy-ucb", 1.5, large),
                            "'performing well' read as: final regret within a factor 1.5 of "
                            "Anytime-Lazy-UCB's (equivalence margin)"))
    return Experiment(f"hu2021-{fig}", PAPER, figure or fig.replace("fig", "Fig. "),
                      f"hu2021-setting{setting}", LINES, epsilons, "time", SIZES, tuple(claims),
                      note=NOTE, paper_size=PAPER_SIZE, axes="linear")


def _epsilon(fig: str, setting: int, figure: str | None = None) -> Experiment:
    claims = (Claim("final regret of Anytime-Lazy-UCB decreases as epsilon increases (Sec. 6)",
                    non_increasing_in_epsilon("anytime-lazy-ucb")),
              Claim("final regret of Hybrid-UCB decreases as epsilon increases (Sec. 6)",
                    non_increasing_in_epsilon("hybrid-ucb")),
              Claim("the final regret of DP-SE tends to stay flat across epsilon (Sec. 6)",
                    flat_in_epsilon("dp-se", 2.0),
                    "'stays flat' read as: mean final regret within a factor 2 between any two "
                    "epsilons (equivalence margin), against the 10x or more of the UCB curves"))
    return Experiment(f"hu2021-{fig}", PAPER, figure or fig.replace("fig", "Fig. "),
                      f"hu2021-setting{setting}", LINES, EPSILONS, "epsilon", SIZES, claims,
                      note=NOTE, paper_size=PAPER_SIZE, axes="log-x")


EXPERIMENTS = [
    _time("fig1", 1, (0.5,)), _time("fig2", 1, (1.0,)), _time("fig3", 1, (8.0,)),
    _time("fig4", 1, (64.0,)), _epsilon("fig5", 1),
    _time("fig6", 2, (0.5,)), _time("fig7", 2, (8.0,)), _time("fig8", 2, (64.0,)),
    _time("fig9", 1, (0.1, 0.25, 128.0)), _epsilon("fig10", 2),
    _time("fig11", 2, (0.1, 0.25, 1.0, 128.0)), _epsilon("fig12", 3, "Fig. 12(a)"),
    _time("fig12b-h", 3, EPSILONS, "Fig. 12(b)-(h)"),
]

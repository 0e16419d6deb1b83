"""Hu, Huang & Mehta, "Near-Optimal Algorithms for Private Online Learning in a Stochastic
Environment" (arXiv:2102.07929): Figs. 1-12, Sec. 6 and Appendix I.

Sec. 6: "We set T = 2 x 2^21 and each plot is an average of 15 independent runs. We set
beta = 1/T in DP-SE", epsilon = 0.10, 0.25, 0.5, 1, 8, 64, 128, K = 5; mean reward settings 1
and 2 (Sec. 6) and 3 (App. I.3). The text states no axis scales; the figures plot regret against
rounds and final regret against epsilon.

The paper's claims are Sec. 6's sentences about setting 1 (Figs. 1-5), carried to setting 2 by
its own sentence ("all three algorithms in setting 2 behave very similarly to how they perform in
setting 1", Figs. 6-8, 10, 11) and to App. I.1's epsilons by its words 'small' and 'large'.
App. I.3 (setting 3, Fig. 12) states no claim: its pages carry only our own check of Theorem 3.
"""

from __future__ import annotations

from ..checks import below_bound, flat_in_epsilon, ratio_at_least, ratio_at_most, trend_down
from ..experiment import Claim, Experiment, Line, Reading
from ..lexicon import read

PAPER = "Hu, Huang & Mehta (arXiv:2102.07929)"
LINES = (Line("anytime-lazy-ucb", "anytime-lazy-ucb"), Line("hybrid-ucb", "hybrid-ucb", variant="paper"),
         Line("dp-se", "dp-se"))
SIZES = {"tiny": (256, 3), "small": (2 ** 14, 8), "default": (2 ** 18, 15), "full": (2 ** 22, 15)}
EPSILONS = (0.1, 0.25, 0.5, 1.0, 8.0, 64.0, 128.0)
PAPER_SIZE = ("T = 2 x 2^21, 15 independent runs, epsilon = 0.10, 0.25, 0.5, 1, 8, 64, 128 "
              "(Sec. 6)")
NOTE = "Bernoulli rewards (the paper does not say); DP-SE with beta = 1/T (Sec. 6)."

SMALL = ("Figures 1 and 2 show that when \u03b5 is small (\u03b5 = 0.5, 1), Anytime-Lazy-UCB is "
         "competitive with DP-SE while Hybrid-UCB does not perform well.")
LARGE = ("However, when \u03b5 is large (\u03b5 = 8, 64), Hybrid-UCB starts performing well, as shown "
         "in Figures 3 and 4. The larger \u03b5 is, the better the performance.")
SETTING2 = ("Generally, all three algorithms in setting 2 behave very similarly to how they perform "
            "in setting 1, e.g., Anytime-Lazy-UCB is competitive with DP-SE and Hybrid-UCB performs "
            "well with large \u03b5 values.")
TREND = ("Apparently, for the UCB-based algorithms, Hybrid-UCB and Anytime-Lazy-UCB, the final "
         "regret decreases as \u03b5 increases. However, just as already shown in (Sajed & Sheffet, "
         "2019), the final regret of DP-SE with different choices of \u03b5 tends to stay flat.")
SEC6 = "Sec. 6, paragraph after the mean reward settings"


def _where(setting: int, figures: str) -> str:
    if setting == 1 and figures in ("Figs. 1-4", "Fig. 5"):
        return f"{SEC6} ({figures})"
    carried = f"{SEC6}, carried to {figures}"
    if setting == 1:
        return carried + " by its words 'small' and 'large'"
    return carried + f" by Sec. 6's sentence on setting 2: \"{SETTING2}\""


def _ours() -> Claim:
    return Claim("Anytime-Lazy-UCB's regret stays below its bound (Theorem 3)",
                 (Reading("mean final regret below Theorem 3's bound at T",
                          below_bound("anytime-lazy-ucb", "hu2021.thm3")),),
                 ours=True, why="our own check of the bound; Sec. 6 makes no such claim")


def _time(fig: str, setting: int, epsilons: tuple[float, ...], figure: str | None = None) -> Experiment:
    figure = figure or fig.replace("fig", "Fig. ")
    claims = []
    small = tuple(e for e in epsilons if e <= 1)
    large = tuple(e for e in epsilons if e >= 8)
    where = _where(setting, "Figs. 1-4" if setting == 1 and fig in ("fig1", "fig2", "fig3", "fig4")
                   else figure)
    if setting != 3 and small:
        claims.append(Claim(
            "at small epsilon Hybrid-UCB does not perform well",
            (read("against the curves it is plotted with, at the panel's small epsilons",
                  lambda m: ratio_at_least("hybrid-ucb", None, m, small), "does not perform well"),),
            word="does not perform well", quote=SMALL, where=where,
            why="beside the curves it is plotted with (Anytime-Lazy-UCB and DP-SE), at the plot's "
                "horizon"))
    # Setting 1's sentence limits 'competitive' to small epsilon; setting 2's has no limit.
    competitive = small if setting == 1 else epsilons
    if setting != 3 and competitive:
        claims.append(Claim(
            "Anytime-Lazy-UCB is competitive with DP-SE" + (" at small epsilon" if setting == 1 else ""),
            (read("at the plot's horizon, at each epsilon of the panel"
                  + (" the sentence covers (small)" if setting == 1 else " (setting 2's sentence has no epsilon limit)"),
                  lambda m: ratio_at_most("anytime-lazy-ucb", ("dp-se",), m, competitive), "competitive"),),
            word="competitive", quote=SMALL if setting == 1 else SETTING2, where=where,
            why="one-sided: being better than DP-SE never contradicts 'competitive'"))
    if setting != 3 and large:
        claims.append(Claim(
            "at large epsilon Hybrid-UCB starts performing well",
            (read("against the curves it is plotted with, at the panel's large epsilons",
                  lambda m: ratio_at_most("hybrid-ucb", None, m, large), "performs well"),),
            word="performs well", quote=LARGE, where=where,
            why="one-sided (Hybrid-UCB being the best curve never contradicts 'performing well'), "
                "beside the curves it is plotted with"))
    claims.append(_ours())
    return Experiment(f"hu2021-{fig}", PAPER, figure, f"hu2021-setting{setting}", LINES, epsilons,
                      "time", SIZES, tuple(claims), note=NOTE + _no_claims(setting),
                      paper_size=PAPER_SIZE, axes="linear")


def _no_claims(setting: int) -> str:
    return (" App. I.3 states no claim about setting 3; this page carries only our own check."
            if setting == 3 else "")


def _epsilon(fig: str, setting: int, figure: str | None = None) -> Experiment:
    figure = figure or fig.replace("fig", "Fig. ")
    where = _where(setting, figure)
    claims = () if setting == 3 else tuple(
        Claim(f"final regret of {label} decreases as epsilon increases",
              (read("over the epsilon grid of the plot", trend_down(label), "decreases"),),
              word="decreases", quote=TREND, where=where,
              why="a trend over the grid, in its direction")
        for label in ("anytime-lazy-ucb", "hybrid-ucb")) + (
        Claim("the final regret of DP-SE tends to stay flat across epsilon",
              (read("over the epsilon grid of the plot", lambda m: flat_in_epsilon("dp-se", m),
                    "stays flat"),),
              word="stays flat", quote=TREND, where=where,
              why="an equivalence across the grid: both directions are departures from flat"),)
    return Experiment(f"hu2021-{fig}", PAPER, figure, f"hu2021-setting{setting}", LINES, EPSILONS,
                      "epsilon", SIZES, claims, note=NOTE + _no_claims(setting),
                      paper_size=PAPER_SIZE, axes="log-x")


EXPERIMENTS = [
    _time("fig1", 1, (0.5,)), _time("fig2", 1, (1.0,)), _time("fig3", 1, (8.0,)),
    _time("fig4", 1, (64.0,)), _epsilon("fig5", 1),
    _time("fig6", 2, (0.5,)), _time("fig7", 2, (8.0,)), _time("fig8", 2, (64.0,)),
    _time("fig9", 1, (0.1, 0.25, 128.0)), _epsilon("fig10", 2),
    _time("fig11", 2, (0.1, 0.25, 1.0, 128.0)), _epsilon("fig12", 3, "Fig. 12(a)"),
    _time("fig12b-h", 3, EPSILONS, "Fig. 12(b)-(h)"),
]

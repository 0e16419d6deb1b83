"""Tossou & Dimitrakakis, "Algorithms for Differentially Private Multi-Armed Bandits", AAAI 2016:
Fig. 2(a)-(d), Sec. 4 (Experiments).

Sec. 4: Bernoulli arms, regret "over 100,000 time steps averaged over 100 runs", plotted "in
logarithmic scale"; privacy levels 0.1 and 1; DP-UCB-INT's input epsilon chosen by Corollary 3.2
for the target (eps', delta' = e^-10, v = 1.1). Fig. 2's caption: 2 arms {0.9, 0.6} or 10 arms.
"""

from __future__ import annotations

from ..claims import crossing, gap_not_increasing, highest, lower_than, spread_larger
from ..experiment import Claim, Experiment, Line

PAPER = "Tossou & Dimitrakakis (AAAI 2016)"

LINES = (
    Line("ucb1", "ucb1"),
    Line("dp-ucb-bound", "dp-ucb-bound", variant="paper"),
    Line("dp-ucb", "dp-ucb", variant="paper"),
    Line("dp-ucb-int", "dp-ucb-int", variant="corrected", params=(("interval", "x"),),
         epsilon_rule="corollary-3.2"),
    Line("dp-ucb-int-y", "dp-ucb-int", variant="corrected", params=(("interval", "y"),),
         epsilon_rule="corollary-3.2"),
    Line("private-ucb", "private-ucb"),
)
SIZES = {"tiny": (256, 3), "small": (4096, 10), "default": (20_000, 30), "full": (100_000, 100)}
PAPER_SIZE = ("T = 100,000 time steps, 100 runs, epsilon' in {0.1, 1} (Sec. 4 and Fig. 2's "
              "caption)")

CLAIMS = (
    Claim("DP-UCB-INT performs significantly better than all other private algorithms",
          lower_than("dp-ucb-int", ("dp-ucb-bound", "dp-ucb", "private-ucb")),
          "final regret of DP-UCB-INT (Lemma B.1 x-rule) below each other private algorithm's"),
    Claim("the same for DP-UCB-INT with Lemma B.1's second (y) rule",
          lower_than("dp-ucb-int-y", ("dp-ucb-bound", "dp-ucb", "private-ucb")),
          "the paper does not say which interval rule it ran; both are shown"),
    Claim("the gap between DP-UCB-INT and non-private UCB does not increase with time",
          gap_not_increasing("dp-ucb-int", "ucb1"),
          "the gap at T is at most 1.1 times the gap at T/2: a gap growing like ln T passes "
          "(6% from T/2 to T at T = 1e5), a gap growing linearly (x2) fails"),
    Claim("DP-UCB is better than DP-UCB-BOUND for small time steps; DP-UCB-BOUND catches up later",
          crossing("dp-ucb", "dp-ucb-bound"),
          "'small time steps' read as T/100; 'catches up' as DP-UCB-BOUND's regret at T below "
          "1.1 times DP-UCB's"),
    Claim("Private-UCB performs worse than all other algorithms", highest("private-ucb")),
    Claim("the difference between the best and worst run is consistent for all algorithms but "
          "Private-UCB (under 664.5 with 2 arms; 30,000 for Private-UCB)",
          spread_larger("private-ucb"),
          "'consistent' read as: Private-UCB's runs spread more than every other algorithm's "
          "(mean absolute deviation from the median); the observed ranges are shown beside"),
)


def _panel(panel: str, setting: str, eps: float) -> Experiment:
    return Experiment(
        f"tossou2016-fig2{panel}", PAPER, f"Fig. 2({panel})", setting, LINES, (eps,), "time",
        SIZES, CLAIMS, paper_size=PAPER_SIZE, axes="log-x",
        note=("DP-UCB-INT runs with the input epsilon of Corollary 3.2 for the panel's target "
              "(delta' = e^-10, v = 1.1) and both interval series of Lemma B.1 (x and y rules): "
              "the paper does not say which rule it used (docs/errata.md#td-int-interval); with "
              "f = ceil(1/eps) the eps' = 0.1 panels would be round-robin for most of the horizon."))


EXPERIMENTS = [_panel("a", "tossou2016-2arms", 1.0), _panel("b", "tossou2016-2arms", 0.1),
               _panel("c", "tossou2016-10arms", 1.0), _panel("d", "tossou2016-10arms", 0.1)]

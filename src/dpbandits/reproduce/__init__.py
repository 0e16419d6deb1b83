"""``dpbandits reproduce``: the papers' experiments, each with its claims tested over the runs.

Every experiment of the papers' experiments sections is an :class:`Experiment`: a setting, the
curves it plots (:class:`Line`: an algorithm, variant and parameters), the privacy levels of its
panels, the size the paper states, and the paper's claims about it as :class:`Claim` objects whose
check is a stated statistical test over the runs. A page's claims are judged together, corrected
for multiplicity. Each claim quotes the paper's sentence and lists every reasonable reading of it
(direction, quantity, margin, horizon, unstated parameters); each reading gets ``supported``,
``contradicted``, ``inconclusive at this size`` (with the number of runs that would decide it) or
``not testable`` (with the reason), and the claim gets the common verdict when its readings agree
and ``depends on reading`` when they do not. Our own checks (the regret bounds) are judged and
tallied apart from the papers' claims.

The package's modules:

* :mod:`~dpbandits.reproduce.claims`: how a claim is judged (the statistics, robust verdicts);
* :mod:`~dpbandits.reproduce.checks`: the claim-check vocabulary, one check per kind of reading;
* :mod:`~dpbandits.reproduce.experiments`: the catalogue, one module per paper;
* :mod:`~dpbandits.reproduce.runner`: cells simulated in parallel, written atomically, resumed;
* :mod:`~dpbandits.reproduce.page`: the CSV, the figure and the page.

Sizes: ``tiny`` (the test suite; seconds), ``small``, ``default`` (minutes) and ``full`` (the
paper's horizon, repetitions and epsilon grid; where the paper states no repetitions, ours, and
the page says so).
"""

from __future__ import annotations

from .checks import (below_bound, both, early_then_caught, flat_in_epsilon, gap_not_increasing,
                     highest, linear_shape, lower_on_average, lower_than, no_worse_than,
                     non_increasing_in_epsilon, not_testable, on_real_data, range_below,
                     return_approaches_optimal, return_not_below, return_ordered_in_epsilon,
                     within_factor)
from .claims import VERDICTS, Cells, Outcome, Verdict, judge
from .experiment import SIZES, Claim, Experiment, Line, Reading
from .experiments import EXPERIMENTS, get_experiment
from .runner import Reproduction, reproduce, reproduce_many

__all__ = ["Line", "Reading", "Claim", "Experiment", "EXPERIMENTS", "VERDICTS", "get_experiment", "reproduce",
           "reproduce_many", "Reproduction", "SIZES", "judge"]

"""``dpbandits reproduce``: the papers' experiments, each with its claims tested over the runs.

Every experiment of the papers' experiments sections is an :class:`Experiment`: a setting, the
curves it plots (:class:`Line`: an algorithm, variant and parameters), the privacy levels of its
panels, the size the paper states, and the paper's claims about it as :class:`Claim` objects whose
check is a stated statistical test over the runs. A page's claims are judged together, corrected
for multiplicity, and each gets one of four verdicts: ``supported``, ``contradicted``,
``inconclusive at this size`` (with the number of runs that would decide it) or ``not testable``
(with the reason).

The package's modules:

* :mod:`~dpbandits.reproduce.claims`: the claim-check vocabulary (the statistics);
* :mod:`~dpbandits.reproduce.experiments`: the catalogue, one module per paper;
* :mod:`~dpbandits.reproduce.runner`: cells simulated in parallel, written atomically, resumed;
* :mod:`~dpbandits.reproduce.page`: the CSV, the figure and the page.

Sizes: ``tiny`` (the test suite; seconds), ``small``, ``default`` (minutes) and ``full`` (the
paper's horizon, repetitions and epsilon grid; where the paper states no repetitions, ours, and
the page says so).
"""

from __future__ import annotations

from .claims import (VERDICTS, Cells, Outcome, Verdict, below_bound, both, crossing, flat_in_epsilon,
                     gap_not_increasing, highest, judge, linear_in_inverse_epsilon, lower_than,
                     non_increasing_in_epsilon, not_testable, return_ordered_in_epsilon,
                     spread_larger, within_factor)
from .experiment import SIZES, Claim, Experiment, Line
from .experiments import EXPERIMENTS, get_experiment
from .runner import Reproduction, reproduce, reproduce_many

__all__ = ["Line", "Claim", "Experiment", "EXPERIMENTS", "VERDICTS", "get_experiment", "reproduce",
           "reproduce_many", "Reproduction", "SIZES", "judge"]

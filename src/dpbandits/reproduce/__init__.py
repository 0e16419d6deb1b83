"""``dpbandits reproduce``: the papers' experiments, each with its claims checked by code.

Every experiment of the papers' experiments sections is an :class:`Experiment`: a setting, the curves it
plots (:class:`Line`: an algorithm, variant and parameters), the privacy levels of its panels, and
the paper's claims about it as :class:`Claim` objects whose ``check`` turns the simulated numbers
into a verdict, ``supported``, ``not supported`` or ``not testable`` (e.g. a claim about T -> oo,
or about data we do not have), with the numbers that decided it.

Sizes: ``tiny`` (the test suite; seconds), ``small`` (the report), ``default`` (minutes) and
``full`` (the paper's horizon and repetitions). Every page states the size it ran at, and claims
are judged on the run's own numbers: a claim not supported at a reduced size may hold at the
paper's size, and the page says so.

Each (line, epsilon) cell is simulated once and written atomically to ``OUT/cells/`` with the
parameters that produced it; an interrupted reproduction reuses the finished cells.
"""


from __future__ import annotations

from .claims import (Cells, Verdict, below_bound, both, crossing, flat_in_epsilon, gap_not_increasing,
                     highest, linear_in_inverse_epsilon, lower_than, non_increasing_in_epsilon,
                     not_testable, return_ordered_in_epsilon, within_factor)
from .experiment import SIZES, Claim, Experiment, Line
from .papers import EXPERIMENTS, get_experiment
from .runner import Reproduction, reproduce

__all__ = ["Line", "Claim", "Experiment", "EXPERIMENTS",
           "get_experiment", "reproduce", "Reproduction", "SIZES"]

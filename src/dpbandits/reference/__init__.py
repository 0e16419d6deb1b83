"""Exact reference implementations of the papers' algorithms, and what they run on.

The registry is the entry point: ``get(name)``, ``make(name, K, ...)``, ``spec(...)`` for the
engine's :func:`simulate`, and ``algorithms()`` for the listing.
"""

from .engine import RUNS_PER_BLOCK, SimulationResult, simulate
from .environments import (SETTINGS, Bernoulli, BetaArms, Deterministic, Table, cyclic_instance,
                           get_setting, lower_bound_instance, rewards_from_losses)
from .neighbours import CELL, ROW, change_cell, replace_row
from .privacy import Guarantee, PrivacyClaim, Variant
from .registry import ALGORITHMS, AlgorithmSpec, algorithms, get, make, spec

__all__ = [
    "ALGORITHMS", "AlgorithmSpec", "algorithms", "get", "make", "spec",
    "RUNS_PER_BLOCK", "SimulationResult", "simulate",
    "SETTINGS", "Bernoulli", "BetaArms", "Deterministic", "Table", "get_setting",
    "cyclic_instance", "lower_bound_instance", "rewards_from_losses",
    "CELL", "ROW", "change_cell", "replace_row",
    "Guarantee", "PrivacyClaim", "Variant",
]

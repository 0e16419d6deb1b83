"""Bit-identity of a kernel with its reference algorithm: the check every kernel test uses."""

from __future__ import annotations

import numpy as np

from dpbandits.reference import simulate

FIELDS = ("pseudo_regret", "realised_regret", "pulls", "actions")


def differing_fields(factory, source, T: int, runs: int, seed: int = 0) -> list[str]:
    """The outputs in which the compiled backend differs from the reference (empty: identical).

    Both backends run the same seeded blocks with actions recorded, so a kernel that consumes
    the random numbers in the reference's order and computes the same values agrees on every run,
    round and checkpoint.
    """
    reference = simulate(factory, source, T, runs, seed=seed, backend="reference", record_actions=True)
    compiled = simulate(factory, source, T, runs, seed=seed, backend="compiled", record_actions=True)
    assert reference.backend == "reference" and compiled.backend == "compiled"
    return [name for name in FIELDS
            if not np.array_equal(getattr(reference, name), getattr(compiled, name))]

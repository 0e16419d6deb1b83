"""Shared test helpers: noise-controlling generators and the Hypothesis profile for CI."""

from __future__ import annotations

import os

import numpy as np
from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=50)
settings.register_profile("dev", deadline=None, max_examples=50)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


class ScriptedNoise(np.random.Generator):
    """A Generator whose Laplace draws are scripted (default: all zero) and recorded.

    Every other method is the ordinary PCG64 generator, so algorithms that also sample Beta or
    uniform variables still run. ``calls`` records (scale, size) of every Laplace call and
    ``draws`` every value returned.
    """

    def __init__(self, seed: int = 0, values=None) -> None:
        super().__init__(np.random.PCG64(seed))
        self.values = list(values) if values is not None else None
        self.calls: list[tuple[object, object]] = []
        self.draws: list[float] = []

    def laplace(self, loc=0.0, scale=1.0, size=None):
        n = 1 if size is None else int(np.prod(size))
        if self.values is None:
            out = np.zeros(n)
        else:
            out = np.array([self.values.pop(0) for _ in range(n)], dtype=float)
        self.calls.append((scale, size))
        self.draws.extend(out.tolist())
        return out.reshape(size) if size is not None else float(out[0])

    @property
    def n_draws(self) -> int:
        return len(self.draws)

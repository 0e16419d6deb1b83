"""A scripted noise source for deterministic checks of the reference algorithms.

Tests need a noise hook that returns zero (deterministic mode) or
records every draw. Every algorithm draws its Laplace noise through ``rng.laplace``, so passing a
:class:`ScriptedNoise` as ``rng`` makes its Laplace draws zero (or a given script) and records
them, while every other draw (uniform, Beta) is the ordinary PCG64 stream. It is meant for tests
and teaching: a policy built on it is not private.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

__all__ = ["ScriptedNoise"]


class ScriptedNoise(np.random.Generator):
    """A Generator whose Laplace draws are scripted (default: all zero) and recorded.

    ``calls`` records (scale, size) of every Laplace call, ``draws`` every value returned.
    """

    def __init__(self, seed: int = 0, values: Iterable[float] | None = None) -> None:
        super().__init__(np.random.PCG64(seed))
        self.values = list(values) if values is not None else None
        self.calls: list[tuple[object, object]] = []
        self.draws: list[float] = []

    def laplace(self, loc=0.0, scale=1.0, size=None):  # type: ignore[override]
        n = 1 if size is None else int(np.prod(size))
        if self.values is None:
            out = np.zeros(n)
        else:
            if len(self.values) < n:
                raise IndexError("the Laplace script has run out of values")
            out = np.array([self.values.pop(0) for _ in range(n)], dtype=float)
        self.calls.append((scale, size))
        self.draws.extend(out.tolist())
        return out.reshape(size) if size is not None else float(out[0])

    @property
    def n_draws(self) -> int:
        return len(self.draws)

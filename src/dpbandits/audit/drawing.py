"""How an audit asks a mechanism for its samples: a sample extended from the runs it already
has, and many samples sent together to a mechanism that takes them at once (a Python candidate
in its host process: ``sample_many_from``). The outputs are those of one ``sample`` call per
request, whichever way they are asked for (each run depends on its seed and index only)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .mechanism import Mechanism

__all__ = ["drawn", "drawn_together"]


def drawn(mechanism: Mechanism, table: Any, n: int, seed: int,
          kept: np.ndarray | None) -> np.ndarray:
    """``mechanism.sample(table, n, seed)``; where runs 0 .. k - 1 of it are ``kept`` and the
    mechanism can extend a sample (``sample_from``), only the runs after them are drawn (the
    same runs: each depends on its seed and index only)."""
    extend = getattr(mechanism, "sample_from", None)
    if kept is None or not callable(extend) or not 0 < len(kept) < n:
        return mechanism.sample(table, n, seed)
    return np.concatenate([kept, extend(table, len(kept), n - len(kept), seed)])


def drawn_together(mechanism: Mechanism, requests: list[tuple[Any, int, np.ndarray | None]],
                   seeds: list[int]) -> list[np.ndarray]:
    """``drawn(mechanism, table, n, seed, kept)`` for each (table, n, kept) request and its
    seed, sent together when the mechanism takes many requests at once (``sample_many_from``):
    the same outputs, each depending on its seed and run index only."""
    many = getattr(mechanism, "sample_many_from", None)
    if not callable(many):
        return [drawn(mechanism, table, n, seed, had) for (table, n, had), seed
                in zip(requests, seeds)]
    firsts = [len(had) if had is not None and 0 < len(had) < n else 0 for _, n, had in requests]
    outputs = many([(table, first, n - first, seed) for (table, n, _), first, seed
                    in zip(requests, firsts, seeds)])
    return [np.concatenate([had, out]) if first else out for (_, _, had), first, out
            in zip(requests, firsts, outputs)]

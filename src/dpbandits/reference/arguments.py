"""The arguments of a numpy function call, flattened: the tracers (:mod:`.watched`,
:mod:`.formed`, :mod:`.intervals`, :mod:`.tagged`) look for their arrays inside the lists and
tuples numpy functions take (``np.stack([x, 1 - x])``)."""

from __future__ import annotations

from typing import Any, Iterable, Iterator

__all__ = ["flat"]


def flat(xs: Iterable[Any]) -> Iterator[Any]:
    """Every item of ``xs``, with lists and tuples (nested to any depth) opened."""
    for x in xs:
        if isinstance(x, (list, tuple)):
            yield from flat(x)
        else:
            yield x

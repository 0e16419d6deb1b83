"""``dpbandits validate``: is a third-party implementation the paper's algorithm, is it as private
as the algorithm claims, and does its regret respect the algorithm's theorems?

:func:`validate` runs a candidate (any audit mechanism: a Python act/observe policy, a function
of the table, or a program in any language over the line protocol of ``docs/audit-protocol.md``)
and the registered reference algorithm on the same fixed table and on fresh tables, compares
their output distributions with two-sample tests under Holm's correction, audits the candidate
against the reference's privacy claim and holds its regret against the explicit bounds.
:mod:`~dpbandits.validate.core` states the design and the guarantees and runs the stages
(checking and loading, arm or base comparisons, correction, privacy, regret, summary; one module
each; each stage's frozen result in :mod:`~dpbandits.validate.stages`),
:mod:`~dpbandits.validate.stats` the tests, :mod:`~dpbandits.validate.figures` the plots and
:mod:`dpbandits.cli.validate` the command.
"""

from __future__ import annotations

from ..lazy import lazy_exports

_WHERE = {"validate": "core", "check_request": "loading", "Validation": "summary",
          "Comparison": "correction", "checkpoints_for": "arms", "rounds_for": "arms",
          "plot": "figures", "holm": "stats", "holm_adjusted": "stats"}
"""Where each public name lives; imported on first use (PEP 562), so that the command line can
read :mod:`dpbandits.validate.defaults` without loading SciPy."""


__getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())

__all__ = ["validate", "check_request", "Validation", "Comparison", "holm", "holm_adjusted", "checkpoints_for",
           "rounds_for", "plot", "write_json"]


def write_json(result, path) -> None:
    """Write ``result.to_dict()`` (or ``result`` itself, a dict) as JSON, atomically (temporary
    file and rename)."""
    import json

    from ..files import atomic_write

    document = result if isinstance(result, dict) else result.to_dict()
    atomic_write(path, lambda handle: json.dump(document, handle, indent=1))

"""Planning the report: the budgets, the parts, and the cache of finished parts (a part is reused
when it was computed with the same parameters and is well formed)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["BUDGETS", "PARTS", "DEFAULT_MINUTES", "Part", "SUMMARY_KEYS", "load_part"]

BUDGETS: dict[str, dict[str, Any]] = {
    "tiny": dict(audit_samples=2_000, audit_int_samples=20_000, bounds_horizon=2 ** 10,
                 bounds_runs=4, bounds_seconds=0.5, reproduce_size="tiny", reseed=False,
                 experiments=("tossou2016-fig2a",)),
    "default": dict(audit_samples=20_000, audit_int_samples=500_000, bounds_horizon=2 ** 15,
                    bounds_runs=20, bounds_seconds=150.0, reproduce_size="full", reseed=False,
                    experiments=None),
    "full": dict(audit_samples=100_000, audit_int_samples=2_000_000, bounds_horizon=2 ** 18,
                 bounds_runs=50, bounds_seconds=1200.0, reproduce_size="full", reseed=True,
                 experiments=None),
}
"""What each budget runs. ``experiments=None`` means every reproduction target.
``bounds_seconds`` is the bounds part's estimated simulation time (runs x T / 1e7 s on the
compiled backend), spent on raising horizons to where vacuous bounds become informative.
``reseed``: whether a claim's verdict near its flip point runs again on seeds 0-4 (260 more
cells, about 70 CPU-seconds at the papers' sizes); without, such a verdict is inconclusive and says so."""

PARTS = ("algorithms", "audit", "bounds", "reproduce")

DEFAULT_MINUTES = 5
"""Wall-clock minutes of the default budget with ``--workers 2`` on the 2-core reference machine,
as the README states it. Projected from the measured CPU seconds (``benchmarks/report_time.py``:
630 cold, of which 42 compile the kernels, 589 warm, with both cores busy to the end): about
5 min 15 s cold and 4 min 54 s warm on 2 idle cores (an estimate)."""


@dataclass
class Part:
    """One finished part: its Markdown, summary counts and the files it wrote."""

    name: str
    markdown: str
    summary: dict[str, Any] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    seconds: float = 0.0
    parameters: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dict(name=self.name, markdown=self.markdown, summary=self.summary, files=self.files,
                    seconds=self.seconds, parameters=self.parameters)


SUMMARY_KEYS: dict[str, dict[str, type]] = {
    "algorithms": {"algorithms": int, "variants": int},
    "audit": {"audits": int, "violations": list, "consistent": list, "controls": dict,
              "false_but_not_detected": list},
    "bounds": {"respected": list, "inconclusive": list, "violated": list, "vacuous": list,
               "not_simulated": list},
    "reproduce": {"supported": list, "contradicted": list, "depends": list, "inconclusive": list,
                  "could_not_fail": list, "could_not_pass": list, "not_testable": list, "below_paper": list, "our_checks": dict},
}
"""The summary each part must carry: key and type (a cached part is checked against it)."""


def load_part(path: Path, name: str, parameters: dict) -> tuple[Part | None, str]:
    """A cached part (None when absent, from other parameters or damaged) and what is wrong
    with it ("" when nothing is)."""
    if not path.exists():
        return None, ""
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        return None, f"not readable JSON: {type(error).__name__}"
    if not isinstance(data, dict):
        return None, "not a JSON object"
    if data.get("parameters") != parameters:
        return None, ""
    problem = _part_problem(data, name)
    if problem:
        return None, problem
    return Part(**data), ""


def _part_problem(data: dict, name: str) -> str:
    """What makes ``data`` not a well-formed part ``name`` ("" when it is one)."""
    fields = {"name": str, "markdown": str, "summary": dict, "files": list, "seconds": (int, float),
              "parameters": dict}
    if set(data) != set(fields):
        return f"fields {sorted(data)} instead of {sorted(fields)}"
    for key, kind in fields.items():
        if not isinstance(data[key], kind) or isinstance(data[key], bool):
            return f"{key!r} has the wrong type"
    if data["name"] != name:
        return f"it names the part {data['name'][:40]!r}"
    if not all(isinstance(f, str) for f in data["files"]):
        return "a file name is not text"
    for key, kind in SUMMARY_KEYS[name].items():
        value = data["summary"].get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            return f"summary {key!r} is missing or has the wrong type"
        if kind is list and not all(isinstance(v, str) for v in value):
            return f"summary {key!r} holds something other than text"
        if kind is dict and not all(isinstance(k, str) and isinstance(v, str)
                                    for k, v in value.items()):
            return f"summary {key!r} holds something other than text"
    return ""


"""``dpbandits report``: the whole verification (claims, audit, bounds, reproductions) in one folder.

Writes ``index.md`` and a self-contained ``index.html`` with a summary on top; an interrupted
report resumes where it stopped (:func:`dpbandits.report.report`).
"""

from __future__ import annotations

import argparse

import json

from ..report import BUDGETS, DEFAULT_MINUTES, PARTS, report
from .options import (add_backend, FOUND, OK, add_progress, add_scheduler, add_seed, add_workers, check_out,
                      cluster, say_for)

HELP = "run the whole verification (claims, audit, bounds, reproductions) and write a report"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default="dpbandits-report", help="output folder (default dpbandits-report)")
    parser.add_argument("--budget", default="default", choices=tuple(BUDGETS),
                        help=f"how much to run (default: about {DEFAULT_MINUTES:g} minutes on 2 cores)")
    parser.add_argument("--part", action="append", choices=PARTS, default=None,
                        help="run only this part (repeatable; default all)")
    add_seed(parser)
    add_scheduler(parser, "run simulations on a Dask cluster (needs dpbandits[distributed])")
    add_workers(parser, "local worker processes (default 1)")
    add_backend(parser)
    add_progress(parser)


def run(args: argparse.Namespace) -> int:
    parts = tuple(dict.fromkeys(args.part or PARTS))
    with cluster(args.scheduler) as client:
        index = report(check_out(args.out), budget=args.budget, seed=args.seed,
                       parts=parts, client=client,
                       workers=args.workers, progress=say_for(args), backend=args.backend)
    text = index.read_text()
    start = text.index("## Summary")
    print(text[start:text.index("\n## ", start + 1)].strip())
    print(f"\nwrote {index} and {index.with_suffix('.html')}")
    return FOUND if found_something(index.parent, parts) else OK


def found_something(folder, parts=PARTS) -> bool:
    """Whether a part of this invocation (``parts``) in ``folder`` found a privacy violation or
    a violated regret bound (the report's exit status 1). A part left in the folder by an
    earlier run with other ``--part`` options does not decide the status: it was not asked for."""
    found = False
    for name in ("audit", "bounds"):
        if name not in parts:
            continue
        path = folder / "parts" / f"{name}.json"
        if path.exists():
            summary = json.loads(path.read_text()).get("summary", {})
            found = found or bool(summary.get("violations") or summary.get("violated"))
    return found

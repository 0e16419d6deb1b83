"""``dpbandits report``: the whole verification (claims, audit, bounds, reproductions) in one folder.

Writes ``index.md`` and a self-contained ``index.html`` with a summary on top; an interrupted
report resumes where it stopped (:func:`dpbandits.report.report`).
"""

from __future__ import annotations

import argparse

from ..errors import check_positive_int
from ..report import BUDGETS, PARTS, report
from .options import OK, add_progress, add_scheduler, add_seed, add_workers, cluster, say_for

HELP = "run the whole verification (claims, audit, bounds, reproductions) and write a report"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default="dpbandits-report", help="output folder (default dpbandits-report)")
    parser.add_argument("--budget", default="default", choices=tuple(BUDGETS),
                        help="how much to run (default: about 10 minutes on 2 cores)")
    parser.add_argument("--part", action="append", choices=PARTS, default=None,
                        help="run only this part (repeatable; default all)")
    add_seed(parser)
    add_scheduler(parser, "run simulations on a Dask cluster (needs dpbandits[distributed])")
    add_workers(parser, "local worker processes (default 1)")
    add_progress(parser)


def run(args: argparse.Namespace) -> int:
    with cluster(args.scheduler) as client:
        index = report(args.out, budget=args.budget, seed=args.seed,
                       parts=tuple(args.part or PARTS), client=client,
                       workers=check_positive_int(args.workers, "workers"), progress=say_for(args))
    text = index.read_text()
    start = text.index("## Summary")
    print(text[start:text.index("\n## ", start + 1)].strip())
    print(f"\nwrote {index} and {index.with_suffix('.html')}")
    return OK

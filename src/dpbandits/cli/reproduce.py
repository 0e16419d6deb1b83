"""``dpbandits reproduce``: an experiment of the papers, with plots, CSV and a page of verdicts.

Each of the paper's claims about the experiment gets a verdict (supported, not supported or not
testable at this size) on the page (:func:`dpbandits.reproduce.reproduce`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import DPBanditsError
from ..reproduce import EXPERIMENTS, SIZES, get_experiment, reproduce
from .options import (add_backend, OK, add_progress, add_scheduler, add_seed, add_workers, check_out, cluster,
                      say_for)

HELP = "reproduce an experiment of the papers (plots, CSV and a page of claims with verdicts)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", metavar="NAME", help="experiment name (see --list)")
    parser.add_argument("--list", action="store_true", help="list the experiments")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--full", action="store_true", help="the paper's horizon and repetitions")
    group.add_argument("--size", choices=SIZES, default="default", help="run size (default: minutes)")
    parser.add_argument("--out", default="dpbandits-out/reproduce", help="output folder")
    add_seed(parser)
    add_workers(parser)
    add_backend(parser)
    add_scheduler(parser, "Dask scheduler address")
    parser.add_argument("--movielens", default=None, metavar="DIR",
                        help="MovieLens-1M folder for chandak2023-table3 (never downloaded)")
    add_progress(parser)


def run(args: argparse.Namespace) -> int:
    if args.list:
        for e in EXPERIMENTS.values():
            print(f"{e.name:22} {e.paper}, {e.figure}: {e.setting}, epsilon "
                  f"{', '.join(f'{x:g}' for x in e.epsilons[:7])}{' ...' if len(e.epsilons) > 7 else ''}")
        return OK
    if not args.name:
        raise DPBanditsError("give an experiment NAME or --list")
    get_experiment(args.name)
    if args.movielens is not None and args.name != "chandak2023-table3":
        raise DPBanditsError("--movielens applies only to chandak2023-table3")
    check_out(Path(args.out) / args.name)
    size = "full" if args.full else args.size
    with cluster(args.scheduler) as client:
        result = reproduce(args.name, Path(args.out) / args.name, size=size, seed=args.seed,
                           workers=args.workers, client=client, movielens=args.movielens,
                           backend=args.backend,
                           progress=say_for(args))
    print(result.page)
    print(f"wrote {', '.join(str(p) for p in result.paths)}", file=sys.stderr)
    return OK

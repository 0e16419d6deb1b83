"""``dpbandits reproduce``: an experiment of the papers, with plots, CSV and a page of verdicts.

Each of the paper's claims about the experiment is quoted on the page with its outcome word (one
test and one margin for every paper, docs/lexicon.md) and its readings, each a stated test over
the runs; the claim's verdict is taken over its decided readings, with the margin at which it
would flip (:func:`dpbandits.reproduce.reproduce`). Our own checks are listed apart. ``--all`` runs every experiment, sharing cells, and
prints each experiment's time and the total; ``--full`` is the paper's size.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import DPBanditsError
import time

from ..reproduce import EXPERIMENTS, SIZES, get_experiment, reproduce, reproduce_many
from .options import (movielens_folder, add_backend, OK, add_progress, add_scheduler, add_seed, add_workers, check_out, cluster,
                      say_for)

HELP = "reproduce an experiment of the papers (plots, CSV and a page of claims with verdicts)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", metavar="NAME", help="experiment name (see --list)")
    parser.add_argument("--list", action="store_true", help="list the experiments")
    parser.add_argument("--all", action="store_true",
                        help="run every experiment (cells shared; prints each one's time and the total)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--full", action="store_true", help="the paper's horizon, repetitions and epsilon grid")
    group.add_argument("--size", choices=SIZES, default="default", help="run size (default: minutes)")
    parser.add_argument("--out", default="dpbandits-out/reproduce", help="output folder")
    add_seed(parser)
    add_workers(parser)
    add_backend(parser)
    add_scheduler(parser, "Dask scheduler address")
    parser.add_argument("--movielens", type=movielens_folder, default=None, metavar="DIR",
                        help="MovieLens-1M folder for the movie experiments (never downloaded)")
    add_progress(parser)


def run(args: argparse.Namespace) -> int:
    if args.list:
        for e in EXPERIMENTS.values():
            print(f"{e.name:22} {e.paper}, {e.figure}: {e.setting}, epsilon "
                  f"{', '.join(f'{x:g}' for x in e.epsilons[:7])}{' ...' if len(e.epsilons) > 7 else ''}")
        return OK
    if args.all and args.name:
        raise DPBanditsError("give an experiment NAME or --all, not both")
    if not args.name and not args.all:
        raise DPBanditsError("give an experiment NAME, --all or --list")
    names = list(EXPERIMENTS) if args.all else [get_experiment(args.name).name]
    movie = [n for n in EXPERIMENTS if EXPERIMENTS[n].setting == "chandak-movielens-standin"]
    if args.movielens is not None and not set(names) & set(movie):
        raise DPBanditsError(f"--movielens applies only to {', '.join(movie)}")
    size = "full" if args.full else args.size
    if args.all:
        check_out(Path(args.out))
        start = time.perf_counter()
        with cluster(args.scheduler) as client:
            results = reproduce_many(names, args.out, size=size, seed=args.seed, workers=args.workers,
                                     client=client, movielens=args.movielens, backend=args.backend,
                                     progress=say_for(args))
        for r in results:
            verdicts = ", ".join(f"{sum(c.verdict == v for c in r.claims)} {v}"
                                 for v in dict.fromkeys(c.verdict for c in r.claims))
            ours = ", ".join(f"{sum(c.verdict == v for c in r.checks)} {v}"
                             for v in dict.fromkeys(c.verdict for c in r.checks))
            print(f"{r.experiment:24} {r.seconds:8.1f} s  {verdicts}"
                  + (f" (our own checks: {ours})" if ours else ""))
        print(f"total {time.perf_counter() - start:.1f} s (wall clock, {args.workers} worker(s)); "
              f"pages in {args.out}/NAME/NAME.md")
        return OK
    check_out(Path(args.out) / args.name)
    with cluster(args.scheduler) as client:
        result = reproduce(args.name, Path(args.out) / args.name, size=size, seed=args.seed,
                           workers=args.workers, client=client, movielens=args.movielens,
                           backend=args.backend,
                           progress=say_for(args))
    print(result.page)
    print(f"wrote {', '.join(str(p) for p in result.paths)}", file=sys.stderr)
    return OK

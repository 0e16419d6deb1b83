"""``dpbandits bounds``: simulate an algorithm and hold its regret against the papers' bounds.

Writes ``bounds-<ALGO>.png`` (mean regret, its band and every checked bound on one plot),
``.json`` and ``.md`` to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys

from .. import limits
from ..bounds.simulated import check_algorithm, plot
from ..errors import DPBanditsError
from ..files import atomic_write
from ..reference import get
from .options import (add_backend, FOUND, OK, add_json, add_out, add_scheduler, add_seed, add_workers,
                      check_out, cluster, epsilon, integer, probability, unit_number)

HELP = "simulate an algorithm and check its regret against the papers' bounds"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("algorithm", metavar="ALGO", help="registered algorithm name")
    parser.add_argument("--variant", default=None, help="variant (default: the algorithm's default)")
    parser.add_argument("--epsilon", type=epsilon, default=None,
                        help="privacy parameter (default 1 for a private ALGO; not for a non-private one)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--setting", default=None, help="a named setting (default hu2021-setting2)")
    where.add_argument("--means", type=unit_number, nargs="+", help="Bernoulli arm means in [0, 1]")
    parser.add_argument("--horizon", type=integer(1, limits.MAX_HORIZON), required=True,
                        help="horizon T")
    parser.add_argument("--runs", type=integer(2, limits.MAX_RUNS), default=20,
                        help="independent runs (at least 2; default %(default)s)")
    add_seed(parser)
    parser.add_argument("--alpha", type=probability, default=0.05,
                        help="1 - simultaneous confidence of the regret band (default %(default)s)")
    parser.add_argument("--value", action="append", default=[], metavar="NAME=X",
                        help="value of another symbol of a bound, e.g. lambda_0=0.5 (repeatable)")
    add_workers(parser)
    add_backend(parser)
    add_scheduler(parser)
    add_out(parser)
    add_json(parser)


def _values(pairs: list[str]) -> dict[str, float]:
    values = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name:
            raise DPBanditsError(f"--value must look like NAME=X, got {pair!r}")
        try:
            values[name] = float(text)
        except ValueError:
            raise DPBanditsError(f"--value {name}: {text!r} is not a number") from None
    return values


def run(args: argparse.Namespace) -> int:
    values = _values(args.value)
    private = get(args.algorithm).private
    if args.epsilon is not None and not private:
        raise DPBanditsError(f"--epsilon does not apply: {args.algorithm} is not private")
    K = len(args.means) if args.means else 2
    limits.check_simulation_size(args.runs, args.horizon, K)
    out = check_out(args.out)
    with cluster(args.scheduler) as client:
        report, _ = check_algorithm(args.algorithm, epsilon=args.epsilon or 1.0,
                                    variant=args.variant,
                                    setting=args.setting, means=args.means, horizon=args.horizon,
                                    runs=args.runs, seed=args.seed, alpha=args.alpha, values=values,
                                    workers=args.workers, client=client, backend=args.backend)
    stem = f"bounds-{report.algorithm}" + (f"-{args.variant}" if args.variant else "")
    atomic_write(out / f"{stem}.json", lambda h: json.dump(report.to_dict(), h, indent=2), "w")
    atomic_write(out / f"{stem}.md", lambda h: h.write(report.to_markdown() + "\n"), "w")
    plot(report, out / f"{stem}.png")
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(report.to_markdown())
        print(f"\nwrote {out / stem}.png, .json and .md", file=sys.stderr)
    return FOUND if report.violated else OK

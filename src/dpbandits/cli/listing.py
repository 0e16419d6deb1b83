"""``dpbandits list``: every registered algorithm, its paper, setting, variants and claims."""

from __future__ import annotations

import argparse
import json

from ..reference import algorithms
from .options import OK, add_json, epsilon

HELP = "list every algorithm with its paper and claim"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--epsilon", type=epsilon, default=1.0,
                        help="epsilon at which the claims are evaluated (default %(default)s)")
    add_json(parser, "print JSON instead of a table")


def run(args: argparse.Namespace) -> int:
    infos = algorithms(args.epsilon)
    if args.json:
        print(json.dumps([info.__dict__ for info in infos], indent=2))
        return OK
    print(f"Privacy claims evaluated at epsilon = {args.epsilon:g}; [row] = one reward vector "
          "replaced.\nparam NAME: default; domain (set one with --param ALGO:NAME=VALUE).\n")
    for info in infos:
        horizon = ", needs T" if info.needs_horizon else ""
        print(f"{info.name}  ({info.title}; {info.feedback}{horizon})")
        print(f"    source:   {info.paper}")
        for variant, claim in info.claims.items():
            default = " (default)" if variant == info.default_variant else ""
            print(f"    {variant + default + ':':<22}{claim}")
        if info.epsilon_range:
            low, high = info.epsilon_range
            print(f"    {'epsilon:':<22}in [{low:g}, {high:g}]")
        for parameter in info.parameters:
            print(f"    {'param ' + parameter['name'] + ':':<22}{parameter['default']!r}; "
                  f"{parameter['domain']}")
    return OK

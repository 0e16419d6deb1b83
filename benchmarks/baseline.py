"""What the timing benchmarks that compare with an older package share: the packages to run."""

from __future__ import annotations

import argparse
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
"""This package's ``src``, beside the benchmarks."""


def add_baseline(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--baseline-src", default=None, metavar="DIR",
                        help="an older package's src directory (git archive COMMIT src | tar -x "
                             "-C DIR, then DIR/src), measured beside this one")


def sources(parser: argparse.ArgumentParser, baseline_src: str | None) -> dict[str, Path]:
    """"this package" -> its ``src``, and "baseline" -> ``baseline_src`` when given (checked)."""
    found = {"this package": SRC}
    if baseline_src is not None:
        baseline = Path(baseline_src).resolve()
        if not (baseline / "dpbandits").is_dir():
            parser.error(f"--baseline-src {baseline} holds no dpbandits package")
        found["baseline"] = baseline
    return found

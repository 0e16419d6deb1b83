"""What the subcommands share: the parser class, the exit codes, common options, progress.

Each option that several commands take is defined once here, with its default, so that the
help texts and the docs (which read these definitions) state one value.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any, Callable, Iterator

from ..distributed import dask_client
from ..errors import DPBanditsError

__all__ = ["Parser", "EXIT_CODES", "OK", "FOUND", "BAD_INPUT", "NOT_TESTED", "say_for",
           "progress_bar", "cluster", "add_seed", "add_workers", "add_scheduler", "add_out",
           "add_progress", "add_json"]

OK, FOUND, BAD_INPUT, NOT_TESTED = 0, 1, 2, 3
"""Exit statuses: consistent / conforms; violation / differs; bad usage or input; could not test."""

EXIT_CODES = """exit status:
  0  consistent / conforms (no violation found, no difference found)
  1  violation / differs (any one, for several checks)
  2  bad usage or input (one line on stderr naming the problem; nothing is run)
  3  could not test (e.g. the output never varied, so no verdict is possible)"""
"""The exit statuses, as every ``--help`` prints them."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise DPBanditsError(message)


def say_for(args: argparse.Namespace) -> Callable[[str], None]:
    """Print progress messages on stderr unless ``--no-progress``."""
    if getattr(args, "no_progress", False):
        return lambda message: None
    return lambda message: print(f"  {message}", file=sys.stderr, flush=True)


class progress_bar:
    """A tqdm bar on stderr (or nothing), used as a context manager with ``update(n)``."""

    def __init__(self, total: int, label: str, disabled: bool, unit: str = " run-rounds") -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=total, desc=label, unit=unit, unit_scale=unit == " run-rounds",
                        disable=disabled, file=sys.stderr, leave=False)

    def __enter__(self):
        return self.bar

    def __exit__(self, *exc: Any) -> None:
        self.bar.close()


@contextlib.contextmanager
def cluster(address: str | None) -> Iterator[Any]:
    """A Dask client for ``--scheduler`` (None without one), closed on leaving."""
    client = dask_client(address)
    try:
        yield client
    finally:
        if client is not None:
            client.close()


def add_seed(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")


def add_workers(parser: argparse.ArgumentParser, help: str = "worker processes (default 1)") -> None:
    parser.add_argument("--workers", type=int, default=1, help=help)


def add_scheduler(parser: argparse.ArgumentParser,
                  help: str = "run on a Dask cluster (needs dpbandits[distributed])") -> None:
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS", help=help)


def add_out(parser: argparse.ArgumentParser, default: str = "dpbandits-out",
            help: str = "output folder") -> None:
    parser.add_argument("--out", default=default, help=f"{help} (default {default})")


def add_progress(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-progress", action="store_true", help="hide progress messages")


def add_json(parser: argparse.ArgumentParser, help: str = "print JSON instead of tables") -> None:
    parser.add_argument("--json", action="store_true", help=help)


def parse_params(pairs: list[str]) -> dict[str, object]:
    """Parse NAME=VALUE pairs; values become int, float or str, in that order of preference."""
    params: dict[str, object] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name.isidentifier():
            raise DPBanditsError(f"--param must look like NAME=VALUE, got {pair!r}")
        value: object = text
        for convert in (int, float):
            try:
                value = convert(text)
                break
            except ValueError:
                continue
        params[name] = value
    return params

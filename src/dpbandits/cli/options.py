"""What the subcommands share: the parser class, the exit codes, common options, progress.

Each option that several commands take is defined once here, with its default, so that the
help texts and the docs (which read these definitions) state one value.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator

from .. import limits
from ..distributed import check_scheduler_address, dask_client
from ..errors import DPBanditsError, check_seed

__all__ = ["Parser", "integer", "auto_integer", "epsilon", "probability", "seconds", "seed",
           "unit_number", "finite_number", "samples_or_zero", "scheduler_address", "movielens_folder", "check_out", "given", "EXIT_CODES", "INTERNAL_ERROR", "OUTPUT_ERROR", "OK", "FOUND", "BAD_INPUT", "NOT_TESTED", "say_for",
           "progress_bar", "cluster", "add_seed", "add_workers", "add_scheduler", "add_out", "add_backend",
           "check_backend", "add_progress", "add_json"]

OK, FOUND, BAD_INPUT, NOT_TESTED = 0, 1, 2, 3
"""Exit statuses: consistent / conforms; violation / differs; bad usage or input; could not test."""

INTERNAL_ERROR = 70
"""Exit status of an internal error (a bug in dpbandits; sysexits' EX_SOFTWARE), never a finding."""

OUTPUT_ERROR = 74
"""Exit status when the output could not be written (standard output or a disk full, a read-only
or vanished device; sysexits' EX_IOERR): neither a finding nor a bug."""

EXIT_CODES = """exit status:
  0  consistent / conforms (no violation found, no difference found)
  1  violation / differs (any one, for several checks)
  2  bad usage or input (one line on stderr naming the problem; nothing is run)
  3  could not test (e.g. the output never varied, so no verdict is possible)
  70 internal error (a bug in dpbandits, reported on one line; not a finding)
  74 the output could not be written (a full disk or standard output; files already written stay)"""
"""The exit statuses, as every ``--help`` prints them."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise DPBanditsError(message)


def _typed(name: str, convert: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse type whose error message is ours (one line with the allowed range)."""
    def parse(text: str) -> Any:
        try:
            return convert(text)
        except DPBanditsError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    parse.__name__ = name
    return parse


def _show(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _exact_integer(text: str, low: int, high: int) -> int:
    """An integer written in decimal digits only: no exponent, no fraction and no underscores
    (``1_0`` is refused here as by every numeric option and ``--param``, never read as 10)."""
    stripped = text.strip()
    digits = stripped[1:] if stripped[:1] in "+-" else stripped
    if not digits.isdigit() or len(digits) > 30 or not low <= int(stripped) <= high:
        raise DPBanditsError(f"must be an integer in [{low}, {high}], got {_show(text)}")
    return int(stripped)


def integer(low: int, high: int) -> Callable[[str], int]:
    """An exact integer in [low, high] (``1e5`` and ``2.0`` are refused, not rounded)."""
    return _typed("integer", lambda text: _exact_integer(text, low, high))


def auto_integer(low: int, high: int) -> Callable[[str], int | None]:
    """``auto`` (None: chosen by the tool) or an exact integer in [low, high]; 0 is refused."""
    def convert(text: str) -> int | None:
        if text.strip() == "auto":
            return None
        try:
            return _exact_integer(text, low, high)
        except DPBanditsError:
            raise DPBanditsError(f"must be 'auto' or an integer in [{low}, {high}], "
                                 f"got {_show(text)}") from None
    return _typed("integer or auto", convert)


def _float(text: str) -> float:
    if "_" in text:                 # float() reads "1_0" as 10; every option refuses it alike
        raise DPBanditsError(f"must be a number written without underscores, got {_show(text)}")
    try:
        value = float(text)
    except ValueError:
        raise DPBanditsError(f"must be a number, got {_show(text)}") from None
    if not math.isfinite(value):
        raise DPBanditsError(f"must be a finite number, got {_show(text)}")
    return value


def finite_number(text: str) -> float:
    """A finite number from text (no nan, inf or underscores): the message says which."""
    if text.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
        raise DPBanditsError(f"must be a finite number, got {_show(text)}")
    return _float(text)


def _epsilon(text: str) -> float:
    value = _float(text) if text.strip().lower() not in ("nan", "inf", "-inf") else math.nan
    return limits.check_epsilon_range(value, "epsilon")


epsilon = _typed("epsilon", _epsilon)
"""A privacy parameter in :data:`dpbandits.limits.EPSILON_RANGE`."""


def _open_unit(text: str) -> float:
    value = _float(text) if text.strip().lower() not in ("nan", "inf", "-inf") else math.nan
    if not 0 < value < 1:
        raise DPBanditsError(f"must lie in (0, 1), got {_show(text)}")
    return value


probability = _typed("probability", _open_unit)
"""A level such as ``--alpha`` in (0, 1)."""


def _closed_unit(text: str) -> float:
    value = _float(text) if text.strip().lower() not in ("nan", "inf", "-inf") else math.nan
    if not 0 <= value <= 1:
        raise DPBanditsError(f"must lie in [0, 1], got {_show(text)}")
    return value


unit_number = _typed("mean", _closed_unit)
"""An arm mean in [0, 1]."""


def _seconds(text: str) -> float:
    value = _float(text) if text.strip().lower() not in ("nan", "inf", "-inf") else math.nan
    if not 0 < value <= limits.MAX_TIMEOUT:
        raise DPBanditsError(f"must be a number of seconds in (0, {limits.MAX_TIMEOUT:g}], "
                             f"got {_show(text)}")
    return value


seconds = _typed("seconds", _seconds)


def _samples_or_zero(text: str) -> int:
    if text.strip() == "0":
        return 0
    try:
        return _exact_integer(text, limits.MIN_SAMPLES, limits.MAX_SAMPLES)
    except DPBanditsError:
        raise DPBanditsError(f"must be 0 (no audit) or an integer in [{limits.MIN_SAMPLES}, "
                             f"{limits.MAX_SAMPLES}], got {_show(text)}") from None


samples_or_zero = _typed("samples", _samples_or_zero)
"""Test runs per side of an audit: 0 (no audit) or [MIN_SAMPLES, MAX_SAMPLES], as ``audit``."""
"""A timeout in (0, :data:`dpbandits.limits.MAX_TIMEOUT`] seconds."""

seed = _typed("seed", lambda text: check_seed(text, "the seed"))
"""An exact integer in [0, 2^128)."""

scheduler_address = _typed("address", check_scheduler_address)
"""A Dask scheduler address with a port (or an ``inproc://`` one: see
:func:`dpbandits.distributed.dask_client`)."""


def _movielens_folder(text: str) -> str:
    from ..reference.matroid.data import DATA_HELP

    folder = Path(text)
    missing = [name for name in ("ratings.dat", "movies.dat") if not (folder / name).is_file()]
    if not folder.is_dir() or missing:
        what = "is not a directory" if not folder.is_dir() else f"has no {' or '.join(missing)}"
        raise DPBanditsError(f"{_show(text)} {what}: {DATA_HELP}")
    return text


movielens_folder = _typed("folder", _movielens_folder)
"""A MovieLens-1M folder (holding ``ratings.dat`` and ``movies.dat``), checked when parsed."""


def given(args: argparse.Namespace, parser_defaults: dict[str, Any], *names: str) -> list[str]:
    """The options among ``names`` whose value differs from their default (i.e. were given)."""
    return [f"--{name.replace('_', '-')}" for name in names
            if getattr(args, name, None) != parser_defaults.get(name)]


def check_out(path: str | Path) -> Path:
    """Create the output folder and check that a file can be written in it, before any work."""
    out = Path(path)
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as error:
        raise DPBanditsError(f"--out {str(out)!r} is not a writable folder: "
                             f"{_why_not_folder(out, error)}") from None
    return out


def _why_not_folder(out: Path, error: OSError) -> str:
    """The reason ``out`` cannot be a folder, naming a symbolic-link loop or a dangling link
    (where the system only says "File exists")."""
    import errno

    try:
        out.resolve(strict=True)
    except RuntimeError:                            # Python < 3.13: "Symlink loop from ..."
        return "it leads through a loop of symbolic links"
    except OSError as resolving:
        if resolving.errno == errno.ELOOP:
            return "it leads through a loop of symbolic links"
        try:
            if out.is_symlink():
                return f"it is a symbolic link to {os.readlink(out)!r}, which does not exist"
        except OSError:
            pass
    if error.errno == errno.ELOOP:
        return "it leads through a loop of symbolic links"
    if error.errno == errno.ENAMETOOLONG:
        return (f"a name in it is longer than the file system allows (at most "
                f"{_name_max(out)} bytes per name, {_path_max()} in all)")
    return error.strerror or str(error)


def _name_max(out: Path) -> int:
    """The longest file name the file system of ``out``'s nearest existing folder takes."""
    folder = out.absolute()
    while True:
        try:
            return os.pathconf(folder, "PC_NAME_MAX")
        except (OSError, ValueError):
            if folder.parent == folder:
                return 255
            folder = folder.parent


def _path_max() -> int:
    try:
        return os.pathconf("/", "PC_PATH_MAX")
    except (OSError, ValueError):
        return 4096


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


def add_candidate_options(parser: argparse.ArgumentParser, *, required: bool,
                          feedback_default: str | None, feedback_help: str) -> None:
    """The options that name a third-party candidate and how to talk to it: ``--command`` or
    ``--python`` (one of them when ``required``), ``--callable``, ``--protocol``, ``--feedback``
    and ``--timeout`` (docs/audit-protocol.md)."""
    from ..audit.external import DEFAULT_TIMEOUT

    which = parser.add_mutually_exclusive_group(required=required)
    which.add_argument("--command", dest="external", metavar="'PROGRAM ARGS'",
                       help="an external program speaking the line protocol (docs/audit-protocol.md)")
    which.add_argument("--python", metavar="MODULE:OBJECT",
                       help="a Python class or factory (MODULE:OBJECT or FILE.py:OBJECT) built "
                            "per run as OBJECT(problem, rng), OBJECT(K, T, epsilon, rng) or "
                            "OBJECT(rng), returning a single-run act/observe policy (with "
                            "--callable: a function OBJECT(table, rng) -> actions)")
    parser.add_argument("--callable", action="store_true",
                        help="--python names a function of the whole table")
    parser.add_argument("--protocol", choices=("table", "interactive"), default="table",
                        help="line protocol of the external program (default table)")
    parser.add_argument("--feedback", choices=("bandit", "full"), default=feedback_default,
                        help=feedback_help)
    parser.add_argument("--require-sandbox", action="store_true",
                        help="refuse to run a candidate without the whole sandbox: Landlock, no "
                             "sockets, no process outliving it (exit status 3 where this "
                             "machine lacks a part; docs/audit-protocol.md#isolation)")
    parser.add_argument("--allow-unsandboxed", action="store_true",
                        help="run the candidate even where there is no sandbox (without it, "
                             "such a run is refused with exit status 3): it can then change "
                             "the user's files, which the tamper record checks only in part")
    parser.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT,
                        help="seconds the candidate may take for each call (a Python "
                             "candidate: loading, building, each act and observe, of its own "
                             "time, not counting the time a loaded machine kept it waiting, and "
                             "at most 10 times as long on the wall clock; a program: each "
                             "expected line) (default %(default)s)")


def sandbox_line(args: argparse.Namespace) -> str:
    """The line that states whether the candidate named by ``args`` runs in a sandbox."""
    from ..audit import isolation, sandbox

    if args.python and not isolation.AVAILABLE:
        return ("candidate not sandboxed: this system has no os.fork, so the candidate runs in "
                "the auditor's process")
    return sandbox.status().line()


def refused_without_sandbox(args: argparse.Namespace) -> int | None:
    """Before a candidate runs: a value of DPBANDITS_NO_SANDBOX other than 1 or true is bad
    input (raised); where the candidate would run unconfined, without ``--allow-unsandboxed``, or
    without the whole sandbox with ``--require-sandbox``, say so on one line and give the exit
    status (3, could not test: the request is valid, this machine cannot meet it); None
    otherwise."""
    from ..audit import sandbox

    try:
        sandbox.switched_off()
    except ValueError as error:
        raise DPBanditsError(str(error)) from None
    line = sandbox_line(args)
    unconfined = line.startswith("candidate not")
    if getattr(args, "require_sandbox", False) and (unconfined or not sandbox.status().complete):
        why = line if unconfined else f"candidate not fully sandboxed: {sandbox.status().missing()}"
        print(f"dpbandits: could not test: {why}; --require-sandbox asks for one (exit status "
              f"{NOT_TESTED})", file=sys.stderr)
        return NOT_TESTED
    if unconfined and not getattr(args, "allow_unsandboxed", False):
        print(f"dpbandits: could not test: {line}; without a sandbox the candidate could change "
              f"the files later runs execute (docs/audit-protocol.md#isolation); "
              f"--allow-unsandboxed runs it anyway (exit status {NOT_TESTED})", file=sys.stderr)
        return NOT_TESTED
    return None


def tampering_record(args: argparse.Namespace):
    """Where the candidate runs without a sandbox: the record of the files it could change to
    steer later runs (:class:`dpbandits.audit.tampering.Record`), taken now; None otherwise."""
    if not sandbox_line(args).startswith("candidate not"):
        return None
    from ..audit.tampering import Record

    return Record.take(args.external or args.python)


def with_status(document: dict, status: int) -> dict:
    """``document`` with the exit status it goes with: a consumer acts on the status, and a
    document without it (or with another) is not this command's finished result."""
    return {**document, "exit_status": status}


def add_seed(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=seed, default=0,
                        help="seed, an integer in [0, 2^128) (default %(default)s)")


def add_workers(parser: argparse.ArgumentParser, help: str = "worker processes") -> None:
    parser.add_argument("--workers", type=integer(1, limits.MAX_WORKERS), default=1,
                        help=f"{help} (default %(default)s)")


def add_backend(parser: argparse.ArgumentParser,
                help: str = "simulation backend: reference (the exact Python code), compiled "
                            "(its numba kernels, the same results) or auto (compiled for long "
                            "runs)") -> None:
    from ..reference.engine import BACKENDS

    parser.add_argument("--backend", choices=BACKENDS, default="auto",
                        help=f"{help} (default %(default)s)")


def check_backend(args: argparse.Namespace) -> None:
    """``--backend compiled`` on an algorithm that runs only in the reference (its kernel
    declined, ``kernel = Declined("...")``): one line giving the reason, before any work. The
    algorithms are those the command runs: ``run``'s ALGO..., ``audit``'s and ``bounds``' ALGO,
    ``--against ALGO``, and every registered one with ``audit --all`` and ``report``."""
    if getattr(args, "backend", None) != "compiled":
        return
    from ..reference.registry import ALGORITHMS, canonical, get, reference_only

    names = list(getattr(args, "algorithms", None) or [])
    names += [name for name in (getattr(args, "algorithm", None), getattr(args, "against", None))
              if name]
    if getattr(args, "all", False) is True or getattr(args, "command", None) == "report":
        names += list(ALGORITHMS)
    for name in dict.fromkeys(canonical(name) for name in names):
        get(name)                                   # an unknown algorithm: the registry's error
        reason = reference_only(name)
        if reason is not None:
            raise DPBanditsError(f"--backend compiled: {name} runs only in the reference "
                                 f"({reason}); use --backend reference or auto")


def add_scheduler(parser: argparse.ArgumentParser,
                  help: str = "run on a Dask cluster (needs dpbandits[distributed])") -> None:
    parser.add_argument("--scheduler", type=scheduler_address, default=None,
                        metavar="HOST:PORT", help=help)


def add_out(parser: argparse.ArgumentParser, default: str = "dpbandits-out",
            help: str = "output folder") -> None:
    parser.add_argument("--out", default=default, help=f"{help} (default %(default)s)")


def add_progress(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-progress", action="store_true", help="hide progress messages")


def add_json(parser: argparse.ArgumentParser, help: str = "print JSON instead of tables") -> None:
    parser.add_argument("--json", action="store_true", help=help)


def parse_params(pairs: list[str], algorithms: list[str]) -> dict[str, dict[str, Any]]:
    """Parse ``--param`` values into each algorithm's parameters (keys: canonical names).

    ``ALGO:NAME=VALUE`` sets NAME for ALGO only; a plain ``NAME=VALUE`` sets it for the one
    algorithm that has NAME and is an error when several do. Values become int, float or str, in
    that order of preference, and must lie in the parameter's declared domain. Reserved and
    unknown names are errors that list the known ones.
    """
    from ..reference.parameters import RESERVED, check_parameter_names, parameters
    from ..reference.registry import canonical, get

    for name in algorithms:
        get(name)                                   # an unknown algorithm: the registry's error
    names = [canonical(name) for name in algorithms]
    chosen: dict[str, dict[str, Any]] = {name: {} for name in names}
    for pair in pairs:
        target, colon, rest = pair.rpartition(":") if ":" in pair.partition("=")[0] else ("", "", pair)
        name, sep, text = rest.partition("=")
        if not sep or not name.isidentifier():
            raise DPBanditsError(f"--param must look like NAME=VALUE or ALGO:NAME=VALUE, got {_show(pair)}")
        if colon:
            algorithm = canonical(target)
            if algorithm not in chosen:
                raise DPBanditsError(f"--param {_show(pair)} names {target!r}, which is not among "
                                     f"the algorithms of this command: {', '.join(names)}")
            check_parameter_names(algorithm, [name])
            chosen[algorithm][name] = _parameter_value(algorithm, name, text)
            continue
        if name in RESERVED:
            check_parameter_names(names[0], [name])
        having = [a for a in names if name in {p.name for p in parameters(a)}]
        if not having:
            if len(names) == 1:
                check_parameter_names(names[0], [name])
            raise DPBanditsError(f"no algorithm of this command has a parameter {name!r}; see "
                                 "`dpbandits list` for each algorithm's parameters")
        if len(having) > 1:
            raise DPBanditsError(f"--param {name}=... is ambiguous: {', '.join(having)} all have "
                                 f"{name!r}; write ALGO:{name}=VALUE for each")
        chosen[having[0]][name] = _parameter_value(having[0], name, text)
    return chosen


def _parameter_value(algorithm: str, name: str, text: str) -> Any:
    """``parse_value(text)``, refusing a number written with underscores (as every option does)
    and a value outside the parameter's declared domain (one line naming it)."""
    from ..reference.domains import check_parameter_value
    from ..reference.parameters import parse_value
    from ..reference.registry import get

    value = parse_value(text)
    if "_" in text and not isinstance(value, str):
        raise DPBanditsError(f"--param {name}: write the number without underscores, got "
                             f"{_show(text)}")
    return check_parameter_value(get(algorithm), name, value, label=f"--param {name}")

"""The ``dpbandits`` command: one module per subcommand, each parsing its own options.

Every subcommand module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and
``run(args) -> int``, and calls the library's public API; nothing below this package imports
from it. Invalid input prints one line, ``dpbandits: error: ...``, and exits with status 2.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import sys
from typing import Sequence

from ..errors import DPBanditsError
from .options import EXIT_CODES, Parser, check_backend

__all__ = ["main", "build_parser", "COMMANDS", "defaults", "options_table"]

COMMANDS: tuple[str, ...] = ("list", "run", "audit", "prove", "bounds", "validate", "report",
                             "reproduce")
"""The subcommands, in the order ``dpbandits --help`` lists them."""

_MODULES = {"list": "listing"}
"""Subcommands whose module is not named after them (``list`` would shadow the builtin)."""


def command_module(name: str):
    """The module implementing subcommand ``name``."""
    return importlib.import_module(f"{__name__}.{_MODULES.get(name, name)}")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of ``dpbandits`` with every subcommand's options (with ``only``, that
    subcommand's alone: the other commands' modules are not imported, about 0.1 s of a start)."""
    parser = Parser(prog="dpbandits", description="Differentially private online learning: "
                    "reference algorithms, privacy audits and regret bounds.",
                    epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for name in COMMANDS if only is None else (only,):
        module = command_module(name)
        sub = commands.add_parser(name, help=module.HELP, description=module.__doc__.split("\n\n")[0],
                                  epilog=getattr(module, "EPILOG", EXIT_CODES),
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(sub)
    return parser


def _subparser(name: str) -> argparse.ArgumentParser:
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return commands.choices[name]


def defaults(name: str) -> dict[str, object]:
    """Each option of subcommand ``name`` (as ``--option``) and its default."""
    return {action.option_strings[-1]: action.default for action in _subparser(name)._actions
            if action.option_strings and action.dest != "help"}


def options_table(name: str) -> str:
    """A Markdown table of subcommand ``name``'s options: option, default and help text."""
    parser = _subparser(name)
    rows = ["| option | default | meaning |", "|---|---|---|"]
    for action in parser._actions:
        if action.dest == "help":
            continue
        option = ", ".join(action.option_strings) or action.metavar or action.dest
        if action.choices and not isinstance(action, argparse._SubParsersAction):
            option += " {" + ",".join(map(str, action.choices)) + "}"
        unset = action.default is None or action.default is False or action.default == []
        default = "-" if unset or not action.option_strings else f"`{action.default}`"
        text = (action.help or "") % {"default": action.default}
        rows.append(f"| `{option}` | {default} | {text.replace('|', '/')} |")
    return "\n".join(rows)


def _named_command(argv: Sequence[str] | None) -> str | None:
    """The subcommand ``argv`` starts with, or None (then the parser holds every command, for
    the top-level help and the error naming the choices)."""
    words = sys.argv[1:] if argv is None else list(argv)
    return words[0] if words and words[0] in COMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dpbandits`` console script; returns the exit status.

    Bad input (a candidate that misbehaves included) is one line and status 2. Anything else
    that escapes a command is an internal error: one line and status 70
    (:data:`~dpbandits.cli.options.INTERNAL_ERROR`), never 0-3, so that no script reads a crash
    as a finding; ``DPBANDITS_TRACEBACK=1`` in the environment prints its traceback too.
    """
    import os

    args = None
    global _STARTS
    _STARTS = _starts()
    try:
        args = build_parser(_named_command(argv)).parse_args(argv)
        check_backend(args)                 # a kernel the algorithm declined: before any work
        return command_module(args.command).run(args)
    except DPBanditsError as error:
        print(f"dpbandits: error: {error}{_sandbox_note(args)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"dpbandits: interrupted{_sandbox_note(args)}", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader of standard output went away (``dpbandits list | head -1``): stop quietly,
        # with the status of a program ended by SIGPIPE, and keep Python from failing again
        # when it flushes standard output at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (MemoryError, OSError, RuntimeError) as error:
        exhausted = _exhausted(error)
        if exhausted is not None:
            print(f"dpbandits: error: {exhausted}{_sandbox_note(args)}", file=sys.stderr)
            return 2
        if not isinstance(error, OSError) or error.errno not in _OUTPUT_ERRNOS:
            return _internal_error(error, args)
        # The output could not be written: what was written before stays; standard output is
        # pointed at the null device so that Python's flush at exit does not fail again.
        from .options import OUTPUT_ERROR

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"dpbandits: error: could not write the output: {error.strerror or error}"
              f"{f' ({error.filename})' if error.filename else ''}; files written before stay "
              f"(exit status {OUTPUT_ERROR})", file=sys.stderr)
        return OUTPUT_ERROR
    except (Exception, SystemExit) as error:
        if isinstance(error, SystemExit) and args is None:
            raise                           # argparse's own exit (--help)
        return _internal_error(error, args)
    finally:
        tampering = sys.modules.get("dpbandits.audit.tampering")
        if tampering is not None:           # imports after the command are no longer guarded
            tampering.release()


_OUTPUT_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS, errno.EFBIG}
"""Errors of writing the output that are the machine's, not the program's."""


def _exhausted(error: BaseException) -> str | None:
    """The message for a system that ran out of memory, processes or threads (the candidate's
    doing, when one ran: a fork bomb, a process limit ``ulimit -u``, memory without bound;
    never a bug of ours), or None for any other error."""
    if isinstance(error, MemoryError):
        what = "memory"
    elif isinstance(error, OSError) and error.errno == errno.EAGAIN:
        what = "a new process or thread (EAGAIN)"
    elif isinstance(error, RuntimeError) and "can't start new thread" in str(error):
        what = "a new thread"
    else:
        return None
    return (f"the system refused {what}: its limits are exhausted, as by a candidate that starts "
            f"processes without end or uses memory without bound (the candidate's processes end "
            f"with the command); run it with fewer --workers or higher limits (ulimit -u, "
            f"ulimit -v)")


_STARTS = 0
"""Candidate processes started before the command (:data:`dpbandits.audit.sandbox.STARTS`)."""


def _starts() -> int:
    return getattr(sys.modules.get("dpbandits.audit.sandbox"), "STARTS", 0)


def _sandbox_note(args: argparse.Namespace | None) -> str:
    """Where a command that started a candidate's process ends without its result: the sandbox
    line in brief (every such exit states it; a result carries the whole line)."""
    if not (getattr(args, "external", None) or getattr(args, "python", None)) or \
            _starts() == _STARTS:
        return ""
    from ..audit import sandbox

    try:
        return f" [{sandbox.status().short()}]"
    except ValueError:                      # DPBANDITS_NO_SANDBOX itself is the error
        return ""


def _internal_error(error: BaseException, args: argparse.Namespace | None = None) -> int:
    """One line naming what escaped a command, status 70 (the traceback only on request)."""
    import os
    import traceback

    from .options import INTERNAL_ERROR

    what = (f"SystemExit({error.code!r}) escaped the command" if isinstance(error, SystemExit)
            else f"{type(error).__name__}: {error}")
    print(f"dpbandits: internal error: {(what.splitlines() or [''])[0][:500]} (a bug in "
          f"dpbandits, not a finding; exit status {INTERNAL_ERROR}; set "
          f"DPBANDITS_TRACEBACK=1 to see where){_sandbox_note(args)}", file=sys.stderr)
    if os.environ.get("DPBANDITS_TRACEBACK"):
        traceback.print_exception(error)
    return INTERNAL_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

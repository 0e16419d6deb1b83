"""The host's side of a Python candidate's process (:mod:`dpbandits.audit.isolation`): confine the
process, then serve the auditor's block requests until the auditor goes away. Nothing here runs
in the auditor; the replies it writes are read there as data."""

from __future__ import annotations

import json
import os
import pickle
import signal
import sys
import tempfile
import threading
import time
from typing import Any

import numpy as np

from ..errors import DPBanditsError
from . import sandbox, tampering
from .quoting import ERROR_CHARACTERS, QUOTED_CHARACTERS

__all__ = ["host_main", "BROKEN", "UNCONFINED"]

BROKEN = 70
"""Exit status of a host whose connection to the auditor the candidate closed or broke."""

UNCONFINED = 71
"""Exit status of a host that could not confine itself (it never loads the candidate)."""


def host_main(owner: Any, connection: Any, progress: memoryview, output: int, folder: str,
               parent: int, box: sandbox.Sandbox, tied: bool) -> None:
    """The host's whole life: confine it, then serve requests until the auditor goes away."""
    status = 0
    try:
        _confine(connection.fileno(), output)
        _use_folder(folder)
        try:
            watched = sandbox.confine_host(folder, parent, box, tied)
        except BaseException as error:
            os.write(2, f"the candidate's process could not confine itself: {error}\n".encode())
            status = UNCONFINED
            return
        owner._progress = progress
        owner._hosts = None
        tampering.release()     # the candidate's own imports are not the auditor's
        if not watched:     # (in namespaces, their keeper watches the auditor)
            threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()
        while True:
            try:
                request = pickle.loads(connection.recv_bytes())
            except (EOFError, OSError):
                break
            connection.send_bytes(_reply(owner, request, progress))
    except BaseException:   # the candidate broke the host itself (closed its connection, ...)
        status = BROKEN if status == 0 else status
    finally:
        os._exit(status)


def _confine(keep: int, output: int) -> None:
    """A session of its own (the terminal's Ctrl-C and the auditor's group kill do not mix),
    standard output and error to the auditor's pipe, no other inherited descriptor."""
    os.setsid()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(output, 1)
    os.dup2(output, 2)
    sandbox.close_above_2(keep)
    sys.stdin = open(0, "r", closefd=False)
    sys.stdout = open(1, "w", buffering=1, closefd=False)
    sys.stderr = open(2, "w", buffering=1, closefd=False)


def _use_folder(folder: str) -> None:
    """Point what writes temporary or cached files at the host's own folder (the only one it
    may write in a sandbox): TMPDIR, numba's and matplotlib's caches."""
    for name, below in (("TMPDIR", ""), ("NUMBA_CACHE_DIR", "numba"), ("MPLCONFIGDIR", "mpl")):
        os.environ[name] = os.path.join(folder, below) if below else folder
    tempfile.tempdir = folder
    config = sys.modules.get("numba.core.config")
    if config is not None:
        config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]


def _exit_with(parent: int) -> None:
    """End the host when the auditor has gone (even while the candidate is busy)."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def _reply(owner: Any, request: tuple, progress: memoryview) -> bytes:
    """The encoded answer to one request: a JSON header line, then the raw int32 actions."""
    try:
        actions = owner._serve(request)
    except DPBanditsError as error:
        return _error(_text(error))
    except BaseException as error:  # anything the candidate raised, SystemExit included
        run, step = (int(x) for x in progress)
        return _error(f"{owner.label}: {owner._call_name(run, step, request)} raised {_name(error)}",
                      _text(error))
    if actions is None:
        return b'{"ok": true}\n'
    actions = np.ascontiguousarray(actions, dtype=np.int32)
    header = json.dumps({"ok": True, "shape": list(actions.shape)}).encode()
    return header + b"\n" + actions.tobytes()


def _error(text: str, quote: str | None = None) -> bytes:
    reply = {"ok": False, "error": text[:ERROR_CHARACTERS]}
    if quote is not None:
        reply["quote"] = quote[:4 * QUOTED_CHARACTERS]
    return json.dumps(reply).encode() + b"\n"


def _name(error: BaseException) -> str:
    try:
        return str(type(error).__name__)
    except BaseException:
        return "an exception"


def _text(error: BaseException) -> str:
    """``str(error)``, even when the candidate's exception cannot be turned into text."""
    try:
        return str(error)
    except BaseException:
        return "(its message could not be read)"

"""The candidate's processes as the kernel confines them (docs/audit-protocol.md#isolation):
another user than root, no sockets out, no process outliving the command.

Each attack of ``tests/data/hostile/attacks.py`` runs as a Python candidate (in its host) and as
an external program (``tests/data/hostile/program.py``, through the launcher), once with this
machine's sandbox and once with a part of it switched off: the second run is the control, where
the attack gets through (``Breached``, or a surviving process), so the part is what stopped it in
the first. A part the machine lacks is skipped, saying why; the parts that depend on the
auditor's user (root's candidate runs as ``nobody``) are checked for the user the tests run as.

Kind: exact (the attack's outcome, the absence of processes and of received messages).
"""

from __future__ import annotations

import dataclasses
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from dpbandits.audit import sandbox
from dpbandits.audit.external import CommandMechanism
from dpbandits.candidates import load
from dpbandits.errors import DPBanditsError
from dpbandits.reference import Table

pytestmark = pytest.mark.hostile

HOSTILE = Path(__file__).resolve().parents[1] / "data" / "hostile"
ATTACKS, PROGRAM = HOSTILE / "attacks.py", HOSTILE / "program.py"
TABLE = Table(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 0.0]]))
MACHINE = sandbox.status()
ROOT = os.geteuid() == 0
KINDS = ["python", "command"]
PYTHON = next((path for path in ("/usr/bin/python3", sys.executable)
               if os.access(path, os.X_OK, effective_ids=True) and
               os.stat(path).st_mode & stat.S_IXOTH), sys.executable)
"""The program's interpreter: one every user may run where there is one (the candidate of an
auditor without privileges cannot enter a private folder holding the auditor's Python)."""


def _with(monkeypatch, **parts) -> None:
    """This machine's sandbox with ``parts`` replaced (the control runs)."""
    monkeypatch.setattr(sandbox, "_STATUS", dataclasses.replace(MACHINE, **parts))


def _run(kind: str, name: str) -> None:
    """Ten runs of the attack; raises the candidate's DPBanditsError (Breached among them)."""
    if kind == "python":
        mechanism = load(f"{ATTACKS}:{name}", K=2, epsilon=1.0, feedback="full", timeout=10)
        try:
            actions = mechanism.sample(TABLE, 10, 0)
        finally:
            mechanism.close()
        assert (actions == 0).all()
    else:
        CommandMechanism([PYTHON, str(PROGRAM), name], 2, 1.0, timeout=10).sample(TABLE, 3, 0)


@pytest.fixture
def mark(monkeypatch):
    """A seconds count of its own (``sleep MARK``) for this test's detached processes."""
    value = f"{987000 + os.getpid() % 1000}.{time.monotonic_ns() % 10 ** 6}"
    monkeypatch.setenv("HOSTILE_MARK", value)
    return value.encode()


def _marked(mark: bytes) -> set[int]:
    found = set()
    for pid in sandbox._parents():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if mark in handle.read().split(b"\0"):
                    found.add(pid)
        except OSError:
            pass
    return found


# ---- no process outlives the command ---------------------------------------------------------

@pytest.mark.skipif(not MACHINE.namespaces, reason=MACHINE.lacking or "no namespaces")
@pytest.mark.parametrize("kind", KINDS)
def test_a_detached_process_of_an_ended_candidate_is_gone_1_s_after(kind, mark):
    with pytest.raises(DPBanditsError, match="ended|exited early"):
        _run(kind, "DetachesAndExits")
    time.sleep(1.0)
    assert _marked(mark) == set()


@pytest.mark.parametrize("kind", KINDS)
def test_without_namespaces_the_auditor_adopts_and_ends_the_detached_process(monkeypatch, mark,
                                                                            kind):
    _with(monkeypatch, namespaces=False)
    try:
        with pytest.raises(DPBanditsError, match="ended|exited early|no answer within"):
            if kind == "python":
                _run(kind, "DetachesAndExits")
            else:       # the detached process holds the program's output until the time limit
                CommandMechanism([PYTHON, str(PROGRAM), "DetachesAndExits"], 2, 1.0,
                                 timeout=2).sample(TABLE, 1, 0)
        time.sleep(1.0)
        assert _marked(mark) == set()
    finally:
        for pid in _marked(mark):
            sandbox._signal(pid, 9)


@pytest.mark.skipif(not MACHINE.namespaces, reason=MACHINE.lacking or "no namespaces")
def test_a_detached_process_of_a_live_host_ends_when_the_auditor_is_killed(mark):
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; from dpbandits.cli import main; sys.exit(main())",
         "audit", "--python", f"{ATTACKS}:Detaches", "--claim-epsilon", "1", "--arms", "2",
         "--samples", "1000000", "--horizon", "16", "--feedback", "full", "--no-progress"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not _marked(mark) and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.2)
        assert _marked(mark), "the candidate did not start its detached process"
    finally:
        process.kill()
        process.wait()
    time.sleep(1.0)
    left = _marked(mark)
    for pid in left:
        sandbox._signal(pid, 9)
    assert left == set()


# ---- no sockets out ----------------------------------------------------------------------------

@pytest.fixture
def listeners(monkeypatch, tmp_path):
    """A pathname unix socket anyone may connect to and a TCP port on 127.0.0.1, both listening;
    yields what they received."""
    received: list[bytes] = []
    path = tmp_path / "listener.sock"
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(str(path))
    os.chmod(path, 0o777)
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("127.0.0.1", 0))
    servers = [unix, tcp]

    def serve(server):
        server.listen(4)
        server.settimeout(0.2)
        while servers:
            try:
                connection, _ = server.accept()
            except OSError:
                continue
            with connection:
                connection.settimeout(2)
                try:
                    received.append(connection.recv(100))
                except OSError:
                    pass

    threads = [threading.Thread(target=serve, args=(server,), daemon=True) for server in servers]
    for thread in threads:
        thread.start()
    monkeypatch.setenv("HOSTILE_SOCKET", str(path))
    monkeypatch.setenv("HOSTILE_PORT", str(tcp.getsockname()[1]))
    yield received
    servers.clear()
    for thread in threads:
        thread.join(2)
    unix.close()
    tcp.close()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("parts", [{}, {"namespaces": False}, {"seccomp": False}],
                         ids=["sandbox", "seccomp only", "namespaces only"])
def test_no_socket_reaches_a_listener_outside(monkeypatch, listeners, kind, parts):
    needed = {"seccomp": MACHINE.seccomp or "seccomp" in parts,
              "namespaces": MACHINE.namespaces or "namespaces" in parts}
    if not all(needed.values()):
        pytest.skip(MACHINE.lacking)
    _with(monkeypatch, **parts)
    if sandbox.status().seccomp:
        _run(kind, "ConnectsOut")
    else:   # a network namespace alone: the TCP port is out of reach, the unix socket is not
        with pytest.raises(DPBanditsError, match=r"reached a socket outside \(/"):
            _run(kind, "ConnectsOut")
    time.sleep(0.3)
    assert listeners == ([] if sandbox.status().seccomp else [b"hello from the candidate"])


@pytest.mark.parametrize("kind", KINDS)
def test_the_control_without_either_reaches_both(monkeypatch, listeners, kind):
    _with(monkeypatch, namespaces=False, seccomp=False)
    with pytest.raises(DPBanditsError, match="reached a socket outside"):
        _run(kind, "ConnectsOut")
    time.sleep(0.3)
    assert listeners and listeners[0] == b"hello from the candidate"


# ---- never root --------------------------------------------------------------------------------

@pytest.fixture
def owned_file(monkeypatch, tmp_path):
    path = tmp_path / "owned.bin"
    path.write_bytes(b"\x7fELF")
    os.chmod(path, 0o755)
    monkeypatch.setenv("HOSTILE_FILE", str(path))
    yield path
    assert stat.S_IMODE(path.stat().st_mode) == 0o755 and path.stat().st_uid == os.geteuid()


@pytest.mark.skipif(not ROOT, reason="the auditor does not run as root: its candidate runs as "
                                     "its own user and may change its own files' metadata")
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("parts", [{}, {"abi": 0, "namespaces": False, "seccomp": False}],
                         ids=["sandbox", "no sandbox"])
def test_roots_candidate_cannot_change_roots_files_metadata(monkeypatch, owned_file, kind, parts):
    _with(monkeypatch, **parts)
    assert sandbox.status().user is not None and "runs as uid" in sandbox.status().line()
    _run(kind, "ChangesMetadata")


@pytest.mark.skipif(not ROOT, reason="the auditor does not run as root")
@pytest.mark.parametrize("kind", KINDS)
def test_the_control_as_root_changes_them(monkeypatch, owned_file, kind):
    _with(monkeypatch, user=None)
    with pytest.raises(DPBanditsError, match="may chmod a file of the auditor"):
        _run(kind, "ChangesMetadata")

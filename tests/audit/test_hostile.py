"""Hostile candidates against the auditor: each attack of ``tests/data/hostile/attacks.py`` fails,
or is reported in one line naming the candidate with exit status 2.

Every candidate there plays follow-the-leader with full information (not private) after its
attack, so an audit the attack did not steer is a violation (exit status 1); an attack that
reached what it aimed at raises ``Breached`` (exit status 2 naming it). The attacks run with the
machine's sandbox (Landlock, skipped where the kernel has none) and without it
(``candidate not sandboxed``: the auditor's own protections only), each where it must fail.

Kinds: exact (exit statuses, the absence of a forged verdict, of surviving processes and of
files) and smoke (the time limits hold against a candidate that writes its progress word).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from dpbandits.audit import sandbox
from dpbandits.cli import main

ROOT = Path(__file__).resolve().parents[2]
ATTACKS = ROOT / "tests" / "data" / "hostile" / "attacks.py"
AUDIT = ["--claim-epsilon", "1", "--arms", "2", "--samples", "100", "--horizon", "4",
         "--feedback", "full", "--json", "--no-progress", "--timeout", "5"]
LANDLOCK = sandbox.status().available
needs_landlock = pytest.mark.skipif(not LANDLOCK, reason=sandbox.status().line())

VERDICT_LINE = re.compile(r"-> (CONSISTENT|VIOLATION)|^(privacy|behaviour|regret): [A-Z]|"
                          r"COULD NOT TEST", re.MULTILINE)
"""What reads as one of our verdict lines."""


@pytest.fixture(autouse=True)
def auditor_named(monkeypatch):
    """The attacks aim at this process (in a PID namespace the candidate cannot name it by its
    parent; a real attacker finds it in /proc)."""
    monkeypatch.setenv("HOSTILE_AUDITOR", str(os.getpid()))


@pytest.fixture
def unsandboxed(monkeypatch):
    """The machine as one without Landlock: the auditor's own protections only."""
    monkeypatch.setattr(sandbox, "_STATUS", sandbox.Sandbox(0, "switched off for this test"))


def _audit(capsys, name: str, *extra: str) -> tuple[int, str, str]:
    status = main(["audit", "--python", f"{ATTACKS}:{name}", *AUDIT, "--allow-unsandboxed", *extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out, err


def _assert_violation(status: int, out: str, err: str) -> None:
    assert status == 1, (status, out, err)
    document = json.loads(out)
    assert document["verdict"] == "violation" and document["exit_status"] == 1


def _marked() -> list[int]:
    """Processes left by the candidates that detach (``attacks.MARK`` in their command)."""
    found = []
    for pid in sandbox._parents():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if b"987654.5" in handle.read():
                    found.append(pid)
        except OSError:
            pass
    return found


# ---- attacks that fail with the sandbox -----------------------------------------------------------

TABLE = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 0.0]])


def _runs(name: str) -> np.ndarray:
    """Ten runs of the candidate in host processes (its attack runs as each run starts); they
    must be follow-the-leader's."""
    from dpbandits.candidates import load
    from dpbandits.reference import Table

    mechanism = load(f"{ATTACKS}:{name}", K=2, epsilon=1.0, feedback="full", timeout=10)
    try:
        actions = mechanism.sample(Table(TABLE), 10, 0)
    finally:
        mechanism.close()
    np.testing.assert_array_equal(actions, np.tile([0, 0, 0, 0], (10, 1)))
    return actions


SANDBOXED = ["ReachesAuditor", "SignalsAuditor", "WritesPackage", "WritesPth", "WritesCache",
             "WritesOut", "ChecksPreload", "ForgesVerdict"]


@needs_landlock
@pytest.mark.exact
@pytest.mark.parametrize("name", SANDBOXED)
def test_an_attack_fails_in_the_sandbox(monkeypatch, tmp_path, name):
    monkeypatch.setenv("HOSTILE_TARGET", str(tmp_path))
    _runs(name)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.exact
def test_without_the_sandbox_a_write_attack_gets_through(monkeypatch, tmp_path, unsandboxed):
    """The control of the test above: unconfined, the candidate's write succeeds (and it says
    so), so the sandbox is what stopped it there."""
    from dpbandits.errors import DPBanditsError

    monkeypatch.setenv("HOSTILE_TARGET", str(tmp_path))
    with pytest.raises(DPBanditsError, match="raised Breached: 'could create a file in the --out"):
        _runs("WritesOut")


UNSANDBOXED = ["ReachesAuditor", "ChecksPreload"]


@pytest.mark.exact
@pytest.mark.parametrize("name", UNSANDBOXED)
def test_an_attack_on_the_auditors_process_fails_without_the_sandbox(unsandboxed, name):
    _runs(name)


@pytest.mark.exact
def test_the_auditor_is_not_dumpable_once_a_candidate_ran():
    _runs("FTL")
    assert not sandbox.dumpable()


@needs_landlock
@pytest.mark.exact
def test_an_audit_of_an_attacking_candidate_is_its_violation_and_says_it_was_sandboxed(capsys):
    status, out, err = _audit(capsys, "ForgesVerdict")
    _assert_violation(status, out, err)
    assert json.loads(out)["notes"][-1].startswith("candidate sandboxed (Landlock ABI ")


@pytest.mark.exact
def test_without_a_sandbox_the_audit_refuses_unless_allowed(capsys, unsandboxed):
    status = main(["audit", "--python", f"{ATTACKS}:FTL", *AUDIT])
    out, err = capsys.readouterr()
    assert status == 3 and out == "" and err == (
        "dpbandits: could not test: candidate not sandboxed: switched off for this test; without "
        "a sandbox the candidate could change the files later runs execute "
        "(docs/audit-protocol.md#isolation); --allow-unsandboxed runs it anyway (exit status 3)\n")
    status, out, err = _audit(capsys, "FTL")
    _assert_violation(status, out, err)
    assert json.loads(out)["notes"][-1].startswith("candidate not sandboxed: switched off")


@pytest.mark.exact
@pytest.mark.parametrize("value", ["0", "false", "yes", "2", " "])
def test_no_sandbox_takes_1_or_true_only(capsys, monkeypatch, value):
    monkeypatch.setattr(sandbox, "_STATUS", None)
    monkeypatch.setenv(sandbox.NO_SANDBOX, value)
    status = main(["audit", "--python", f"{ATTACKS}:FTL", *AUDIT])
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and err == (
        f"dpbandits: error: DPBANDITS_NO_SANDBOX must be 1 or true (or unset), got {value!r}\n")
    for value in ("1", "true", "TRUE"):
        monkeypatch.setenv(sandbox.NO_SANDBOX, value)
        assert sandbox.switched_off()


@pytest.mark.exact
def test_require_sandbox_names_a_missing_part(capsys, monkeypatch):
    box = sandbox.Sandbox(7, "", None, False, True, "no namespaces here (for this test)")
    monkeypatch.setattr(sandbox, "_STATUS", box)
    status = main(["audit", "--python", f"{ATTACKS}:FTL", *AUDIT, "--require-sandbox"])
    out, err = capsys.readouterr()
    assert status == 3 and out == "" and err == (
        "dpbandits: could not test: candidate not fully sandboxed: no namespaces here (for this "
        "test); --require-sandbox asks for one (exit status 3)\n")


@pytest.mark.exact
def test_without_a_sandbox_the_audit_says_so_and_require_sandbox_refuses(capsys, unsandboxed):
    status = main(["audit", "--python", f"{ATTACKS}:FTL", *AUDIT, "--require-sandbox"])
    out, err = capsys.readouterr()
    assert status == 3 and out == "" and err == (
        "dpbandits: could not test: candidate not sandboxed: switched off for this test; "
        "--require-sandbox asks for one (exit status 3)\n")


# ---- what the candidate says is data -----------------------------------------------------------

@pytest.mark.exact
def test_a_verdict_in_a_candidates_message_is_quoted_not_a_verdict_line(capsys):
    status, out, err = _audit(capsys, "RaisesVerdict")
    assert status == 2 and out == "" and err.count("\n") == 1, (status, out, err)
    assert "RaisesVerdict" in err and "raised RuntimeError: 'x.py:X: claim eps" in err
    assert VERDICT_LINE.search(err) is None, err


@pytest.mark.exact
@pytest.mark.parametrize("name, message", [
    ("NestedReply", r"sent the auditor a message that is not a reply"),
    ("PartialReply", r"sent the auditor a reply that did not end within the time limit of 5 s"),
])
def test_a_forged_reply_is_the_candidates_error(capsys, unsandboxed, name, message):
    status, out, err = _audit(capsys, name)
    assert status == 2 and out == "" and err.count("\n") == 1, (status, out, err)
    assert re.search(message, err) and name in err, err


@pytest.mark.smoke
@pytest.mark.parametrize("name", ["TogglesProgress", "AdvancesProgress"])
def test_writing_the_progress_word_does_not_defeat_the_time_limit(capsys, unsandboxed, name):
    # Before, the toggling candidate ran until the outer time limit of the test run.
    status, out, err = _audit(capsys, name, "--timeout", "2")
    assert status == 2 and out == "" and err.count("\n") == 1, (status, out, err)
    assert "did not return within the time limit of 2 s" in err and name in err, err


# ---- processes -------------------------------------------------------------------------------

@pytest.mark.exact
def test_no_process_of_the_candidate_outlives_the_audit(unsandboxed):
    from dpbandits.errors import DPBanditsError

    _runs("Detaches")
    assert sandbox.wait_gone(set(_marked()), 5.0) == set()
    with pytest.raises(DPBanditsError, match=r"ForksMany: building the candidate raised "
                                             r"RuntimeError: 'forked 200 processes'"):
        _runs("ForksMany")
    assert sandbox.wait_gone(set(_marked()), 5.0) == set()


def _auditor(argv: list[str], **env: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "import os, sys; from dpbandits.cli import main; "
                             "os.environ['HOSTILE_AUDITOR'] = str(os.getpid()); sys.exit(main())",
                             *argv], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, **env})


@pytest.mark.exact
def test_a_killed_auditor_leaves_no_verdict_and_no_host(tmp_path):
    """The candidate without a sandbox may kill an auditor of its own user; then nothing reads
    as a verdict: standard output holds no document and the --out folder no file. An auditor
    run by root is out of its reach: the candidate runs as another user, and the audit ends
    with its own verdict."""
    out = tmp_path / "out"
    process = _auditor(["validate", "--python", f"{ATTACKS}:ForgesVerdict", "--against",
                        "rnm-ftnl", "--epsilon", "1", "--runs", "20", "--horizon", "10",
                        "--json", "--no-progress", "--out", str(out), "--allow-unsandboxed"],
                       DPBANDITS_NO_SANDBOX="1")
    stdout, stderr = process.communicate(timeout=300)
    if os.geteuid() == 0:
        assert process.returncode == 1, (process.returncode, stderr)
        assert json.loads(stdout)["exit_status"] == 1 and b'"epsilon_lower_bound": 0.0' not in stdout
        return
    assert process.returncode == -signal.SIGKILL, (process.returncode, stderr)
    assert b"consistent" not in stdout and stdout.strip() == b""
    assert not out.exists() or [p.name for p in out.iterdir()] == []


@pytest.mark.exact
def test_a_host_busy_in_c_dies_with_the_auditor():
    process = _auditor(["audit", "--python", f"{ATTACKS}:BusyInC", *AUDIT])
    hosts: set[int] = set()
    deadline = time.monotonic() + 120
    while not hosts and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.5)
        hosts = sandbox.descendants(process.pid)
    assert hosts, process.communicate()
    time.sleep(1.0)                         # the host is in its long C call by now
    process.kill()
    process.communicate()
    assert sandbox.wait_gone(hosts, 5.0) == set()


# ---- external programs -----------------------------------------------------------------------

@needs_landlock
@pytest.mark.exact
def test_an_external_program_is_sandboxed_too(monkeypatch, tmp_path):
    from dpbandits.audit.external import CommandMechanism
    from dpbandits.reference import Table

    monkeypatch.setenv("HOSTILE_TARGET", str(tmp_path))
    program = CommandMechanism(["sh", str(ATTACKS.parent / "writes.sh")], 2, 1.0, timeout=10)
    actions = program.sample(Table(TABLE), 5, 0)
    assert (actions == 0).all() and list(tmp_path.iterdir()) == []


@pytest.mark.exact
def test_without_the_sandbox_the_same_program_reaches_the_folder(monkeypatch, tmp_path,
                                                                 unsandboxed):
    """The control of the test above: unconfined, the program's write succeeds (and is its
    error), so the sandbox is what stopped it there."""
    from dpbandits.audit.external import CommandMechanism
    from dpbandits.errors import DPBanditsError
    from dpbandits.reference import Table

    monkeypatch.setenv("HOSTILE_TARGET", str(tmp_path))
    program = CommandMechanism(["sh", str(ATTACKS.parent / "writes.sh")], 2, 1.0, timeout=10)
    with pytest.raises(DPBanditsError, match=r"exited with status 9 .*breached: wrote in"):
        program.sample(Table(TABLE), 5, 0)


@pytest.mark.exact
def test_validates_documents_carry_their_exit_status_and_the_sandbox_line(capsys, tmp_path):
    status = main(["validate", "--python", f"{ATTACKS}:FTL", "--against", "rnm-ftnl",
                   "--epsilon", "1", "--runs", "20", "--horizon", "10", "--audit-samples", "0",
                   "--json", "--no-progress", "--out", str(tmp_path)])
    printed = json.loads(capsys.readouterr().out)
    written = json.loads(next(tmp_path.glob("validate-*.json")).read_text())
    assert printed == written and printed["exit_status"] == status
    assert printed["sandbox"] == sandbox.status().line()


# ---- tampering, where there is no sandbox ------------------------------------------------------

@pytest.mark.exact
def test_without_a_sandbox_a_changed_watched_file_is_the_candidates_error(capsys, monkeypatch,
                                                                         tmp_path, unsandboxed):
    from dpbandits.audit import tampering

    watched = tmp_path / "result.py"
    watched.write_text("VERDICT = None\n")
    monkeypatch.setattr(tampering, "watched_files", lambda: [watched])
    monkeypatch.setenv("HOSTILE_WATCHED", str(watched))
    status, out, err = _audit(capsys, "AppendsWatched")
    assert status == 2 and out == "" and err.count("\n") == 1, (status, out, err)
    assert f"{watched} changed while the candidate ran, without a sandbox" in err
    status, out, err = _audit(capsys, "FTL")          # the control: nothing changed
    _assert_violation(status, out, err)

"""An internal error is never read as a finding: one line and exit status 70 (74 when the output
could not be written).

Kinds: exact (an exception or a stray ``SystemExit`` escaping a command gives status 70 and one
line on standard error, the traceback only with ``DPBANDITS_TRACEBACK=1``; ``--help`` still exits 0).
"""

from __future__ import annotations

import pytest

from dpbandits.cli import command_module, main
from dpbandits.cli.options import INTERNAL_ERROR


@pytest.mark.exact
@pytest.mark.parametrize("raised, named", [
    (ZeroDivisionError("division by zero"), "ZeroDivisionError: division by zero"),
    (KeyError("line one\nline two"), "KeyError: 'line one"),
    (SystemExit(1), "SystemExit(1) escaped the command"),
    (SystemExit(0), "SystemExit(0) escaped the command"),
])
def test_an_internal_error_is_one_line_and_status_70(monkeypatch, capsys, raised, named):
    def broken(args):
        raise raised
    monkeypatch.setattr(command_module("list"), "run", broken)
    monkeypatch.delenv("DPBANDITS_TRACEBACK", raising=False)
    assert main(["list"]) == INTERNAL_ERROR == 70
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"dpbandits: internal error: {named}") and "not a finding" in err


@pytest.mark.exact
def test_the_traceback_is_printed_on_request(monkeypatch, capsys):
    def broken(args):
        raise ZeroDivisionError("division by zero")
    monkeypatch.setattr(command_module("list"), "run", broken)
    monkeypatch.setenv("DPBANDITS_TRACEBACK", "1")
    assert main(["list"]) == 70
    assert "Traceback" in capsys.readouterr().err


@pytest.mark.exact
def test_help_still_exits_0_and_names_status_70(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["audit", "--help"])
    assert stop.value.code == 0
    assert "70 internal error" in capsys.readouterr().out


@pytest.mark.exact
def test_a_full_standard_output_is_status_74_and_keeps_the_files(tmp_path):
    """Writing to a full device is the machine's failure, not a bug (70) nor a finding (1): the
    run's files are written before anything is printed, and stay."""
    import subprocess
    import sys
    from pathlib import Path

    full = Path("/dev/full")
    if not full.exists():
        pytest.skip("no /dev/full on this system")
    with full.open("w") as stdout:
        done = subprocess.run([sys.executable, "-c",
                               "import sys; from dpbandits.cli import main; sys.exit(main())",
                               "run", "ucb1", "--means", "0.5", "0.4", "--horizon", "10", "--runs",
                               "2", "--out", str(tmp_path), "--no-progress", "--plot"],
                              stdout=stdout, stderr=subprocess.PIPE, text=True, check=False)
    assert done.returncode == 74, done.stderr
    assert done.stderr.count("\n") == 1 and "could not write the output" in done.stderr
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".csv", ".png"]


@pytest.mark.exact
def test_an_unrelated_os_error_is_still_an_internal_error(monkeypatch, capsys):
    def broken(args):
        raise FileNotFoundError(2, "No such file or directory", "nowhere")
    monkeypatch.setattr(command_module("list"), "run", broken)
    assert main(["list"]) == INTERNAL_ERROR


@pytest.mark.exact
@pytest.mark.parametrize("raised, named", [
    (MemoryError(), "refused memory"),
    (BlockingIOError(11, "Resource temporarily unavailable"), "refused a new process or thread"),
    (RuntimeError("can't start new thread"), "refused a new thread"),
])
def test_an_exhausted_system_is_status_2_not_an_internal_error(monkeypatch, capsys, raised, named):
    # A candidate's fork bomb under `ulimit -u`, or memory without bound, reached the auditor as
    # "internal error ... a bug in dpbandits" (status 70).
    def exhausted(args):
        raise raised
    monkeypatch.setattr(command_module("list"), "run", exhausted)
    assert main(["list"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("dpbandits: error: the system ")
    assert named in err and "internal error" not in err and "ulimit -u" in err


@pytest.mark.exact
def test_another_runtime_error_is_still_an_internal_error(monkeypatch, capsys):
    def broken(args):
        raise RuntimeError("something else")
    monkeypatch.setattr(command_module("list"), "run", broken)
    assert main(["list"]) == INTERNAL_ERROR

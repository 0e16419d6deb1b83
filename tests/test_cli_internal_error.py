"""An internal error is never read as a finding: one line and exit status 70.

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

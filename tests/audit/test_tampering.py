"""The tamper record of a run without a sandbox (:mod:`dpbandits.audit.tampering`): compiled
files planted with their source's time stamp and size, start-up modules, and modules the auditor
imports after the candidate started.

Kinds: exact (which file is named, and that an untouched record passes).
"""

from __future__ import annotations

import importlib
import os
import sys
import time

import pytest

from dpbandits.audit import tampering
from dpbandits.errors import DPBanditsError


@pytest.fixture
def record():
    """A record as a command takes it, released at the end as the command line does."""
    taken = tampering.Record.take("x.py:C")
    yield taken
    tampering.release()


def _rewrite_keeping_stamp(path, text: str) -> None:
    """What a candidate does to hide a change: same size, the old modification time."""
    info = path.stat()
    path.write_text(text)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


@pytest.mark.exact
def test_the_record_covers_compiled_files_imported_modules_and_start_up_modules():
    files = tampering.compiled_files()
    assert any(path.parent.name == "__pycache__" and "dpbandits" in path.parts for path in files)
    numpy = sys.modules["numpy"].__spec__.origin
    assert any(str(path) == numpy for path in files)
    watched = {path.name for path in tampering.watched_files()}
    assert {"sitecustomize.py", "usercustomize.py"} <= watched


@pytest.mark.exact
def test_a_compiled_file_rewritten_with_its_old_stamp_is_named(monkeypatch, tmp_path, record):
    planted = tmp_path / "__pycache__" / "result.cpython-311.pyc"
    planted.parent.mkdir()
    planted.write_text("A" * 100)
    monkeypatch.setattr(tampering, "compiled_files", lambda: [planted])
    tampering.before_candidate()
    record.check("x.py:C")                          # nothing changed yet
    time.sleep(0.01)
    _rewrite_keeping_stamp(planted, "B" * 100)
    with pytest.raises(DPBanditsError, match=rf"x\.py:C: {planted} changed while the candidate "
                                             r"ran, without a sandbox"):
        record.check("x.py:C")


@pytest.mark.exact
def test_a_new_sitecustomize_on_the_path_is_named(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    record = tampering.Record.take("x.py:C")
    try:
        (tmp_path / "sitecustomize.py").write_text("import os\n")
        with pytest.raises(DPBanditsError, match=rf"{tmp_path / 'sitecustomize.py'} appeared"):
            record.check("x.py:C")
    finally:
        tampering.release()


@pytest.mark.exact
def test_a_module_changed_after_the_candidate_started_is_not_imported(monkeypatch, tmp_path,
                                                                     record):
    module = tmp_path / "late_module_of_the_auditor.py"
    module.write_text("VALUE = 1\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    tampering.before_candidate()
    assert sys.dont_write_bytecode
    time.sleep(0.01)
    _rewrite_keeping_stamp(module, "VALUE = 2\n")
    with pytest.raises(DPBanditsError, match=rf"x\.py:C: {module} changed while the candidate"):
        importlib.import_module("late_module_of_the_auditor")
    tampering.release()
    assert importlib.import_module("late_module_of_the_auditor").VALUE == 2
    sys.modules.pop("late_module_of_the_auditor", None)

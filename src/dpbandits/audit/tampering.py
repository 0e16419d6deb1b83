"""Where a candidate runs without a sandbox: did it change the code that later runs execute?

A candidate that can write the user's files can append to an installed module of this package
(an editable install points into the repository) or of any library the auditor imports, plant a
compiled file (``.pyc``) with its source's own time stamp and size, add a ``.pth`` file or a
``sitecustomize``/``usercustomize`` module (which every later Python process runs), or change
numba's cache of compiled kernels. Without a sandbox (:mod:`dpbandits.audit.sandbox`) nothing
stops that; :class:`Record` detects it, in three parts:

* when the command starts: the size, modification time and SHA-256 of the package's own source
  files, of every ``.pth`` file of site-packages and of every ``sitecustomize``/``usercustomize``
  module on the path (and their absence);
* when the first process of the candidate starts (:func:`before_candidate`): the size,
  modification time and status-change time of every file in a ``__pycache__`` folder of the
  package (compiled modules, numba's kernels), of every module the auditor has imported and of
  its compiled file. From then on the auditor writes no compiled file itself
  (``sys.dont_write_bytecode``), and every module it imports later is refused when its source or
  compiled file changed status after that moment (a status-change time cannot be set back by a
  process without privileges): the import fails with the candidate's error;
* once every process of the candidate has ended, before any result is printed or written
  (:meth:`Record.check`): every file of the first two parts compared.

A change is the candidate's: one line naming the file, exit status 2, no result. numba's kernels
are compared by content, and its index and new kernels not at all (the auditor and other
processes write those too). What it does not see: an entry added to numba's index with a new
kernel, files no later run reads, and anything a candidate running as the auditor's user
changes in files of another program; another process writing this package's compiled files at
the same time reads as the candidate's. docs/audit-protocol.md#isolation says so.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.util
import os
import site
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import DPBanditsError

__all__ = ["Record", "watched_files", "before_candidate", "release"]

CUSTOMIZE = ("sitecustomize", "usercustomize")
"""Modules every Python process imports at start-up when they exist on the path."""

KERNEL_CACHE = (".nbi", ".nbc")
"""numba's cache files: a kernel (``.nbc``) is compared by content; an index (``.nbi``) and a
new kernel are not flagged (the auditor and other processes write them too)."""


def watched_files() -> list[Path]:
    """The package's own source files, the ``.pth`` files of every site-packages folder and
    every place on the path a ``sitecustomize`` or ``usercustomize`` module would be read."""
    package = Path(__file__).resolve().parents[1]
    files = [Path(root) / name for root, dirs, names in os.walk(package)
             for name in names if name.endswith(".py") and "__pycache__" not in root]
    for folder in _site_folders():
        try:
            files += [Path(folder) / name for name in os.listdir(folder) if name.endswith(".pth")]
        except OSError:
            continue
    for folder in {*_site_folders(), *(entry for entry in sys.path if entry)}:
        for name in CUSTOMIZE:
            files += [Path(folder) / f"{name}.py", Path(folder) / name / "__init__.py"]
    return sorted(set(files))


def _site_folders() -> list[str]:
    folders = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    user = site.getusersitepackages() if hasattr(site, "getusersitepackages") else None
    return folders + ([user] if user else [])


def compiled_files() -> list[Path]:
    """Every file in a ``__pycache__`` folder of the package, every imported module's file and
    its compiled file, and the compiled files of :func:`watched_files`' customize modules."""
    package = Path(__file__).resolve().parents[1]
    files = [Path(root) / name for root, dirs, names in os.walk(package)
             for name in names if Path(root).name == "__pycache__"]
    for module in list(sys.modules.values()):
        origin = getattr(getattr(module, "__spec__", None), "origin", None)
        if isinstance(origin, str) and os.path.isabs(origin):
            files += [Path(origin), *_cached(origin)]
    for path in watched_files():
        if path.name == "__init__.py" or path.stem in CUSTOMIZE:
            files += _cached(str(path))
    return sorted(set(files))


def _cached(source: str) -> list[Path]:
    if not source.endswith(".py"):
        return []
    try:
        return [Path(importlib.util.cache_from_source(source))]
    except (NotImplementedError, ValueError):
        return []


def _state(path: Path) -> tuple[int, int, str] | None:
    try:
        info = path.stat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns, digest


def _status(path: Path) -> tuple | None:
    """A compiled file's size, modification and status-change times; for a numba kernel, its
    size and SHA-256 (the auditor and other processes rewrite its index and add kernels, and
    a kernel it rewrites unchanged is not the candidate's change)."""
    if path.suffix in KERNEL_CACHE:
        if path.suffix == ".nbi":
            return None                     # an index changes with every kernel added
        state = _state(path)
        return None if state is None else state[::2]
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns, info.st_ctime_ns


_ACTIVE: "Record | None" = None
"""The record of the command running in this process (the one :func:`before_candidate` marks)."""


def before_candidate() -> None:
    """Called before every candidate process starts: the first time with a record active, take
    its second part and guard every later import."""
    record = _ACTIVE
    if record is not None and record.compiled is None:
        record.compiled = {path: _status(path) for path in compiled_files()}
        record.since = time.time_ns()
        record.bytecode = sys.dont_write_bytecode
        sys.dont_write_bytecode = True
        sys.meta_path.insert(0, _Guard(record))


@dataclass
class Record:
    """The watched files' states when the command started (and, once a candidate process
    started, the compiled files' status then)."""

    states: dict[Path, tuple[int, int, str] | None]
    compiled: dict[Path, tuple[int, int, int] | None] | None = None
    since: int = 0
    bytecode: bool = False
    label: str = field(default="the candidate")

    @classmethod
    def take(cls, label: str = "the candidate") -> "Record":
        global _ACTIVE
        record = cls({path: _state(path) for path in watched_files()}, label=label)
        _ACTIVE = record
        return record

    def check(self, label: str) -> None:
        """Raise, naming the first file that appeared, vanished or changed since :meth:`take`
        (or, for the compiled files, since the first candidate process started)."""
        now = {path: _state(path) for path in watched_files()}
        for path in sorted(set(now) | set(self.states)):
            before, after = self.states.get(path), now.get(path)
            if before == after or (before is not None and after is not None
                                   and before[::2] == after[::2]):
                continue                    # unchanged, or touched with the same content
            raise _tampered(label, path, "appeared" if before is None else
                            "vanished" if after is None else "changed")
        for path, before in sorted((self.compiled or {}).items()):
            after = _status(path)
            if before != after and not (before is None and path.suffix in KERNEL_CACHE):
                raise _tampered(label, path, "appeared" if before is None else
                                "vanished" if after is None else "changed")
        package = Path(__file__).resolve().parents[1]
        for path in (compiled_files() if self.compiled is not None else []):
            if path not in self.compiled and path.suffix not in KERNEL_CACHE and \
                    package in path.parents:
                raise _tampered(label, path, "appeared")


def _tampered(label: str, path: Path, what: str) -> DPBanditsError:
    return DPBanditsError(
        f"{label}: {path} {what} while the candidate ran, without a sandbox: the "
        f"candidate's doing (exit status 2, no result); a changed module of this package, a "
        f"compiled file or a .pth file changes every later run: restore it (reinstall dpbandits, "
        f"remove the .pth file and the __pycache__ folders) and audit where there is a sandbox "
        f"(docs/audit-protocol.md#isolation)")


def release() -> None:
    """At the end of the command: no record active, no import guarded, compiled files written
    again."""
    global _ACTIVE
    if _ACTIVE is not None and _ACTIVE.compiled is not None:
        sys.dont_write_bytecode = _ACTIVE.bytecode
    _ACTIVE = None
    sys.meta_path[:] = [finder for finder in sys.meta_path if not isinstance(finder, _Guard)]


class _Guard(importlib.abc.MetaPathFinder):
    """Refuses a module imported after the candidate started whose source or compiled file
    changed status since (its code would run in the auditor)."""

    def __init__(self, record: Record) -> None:
        self.record = record

    def find_spec(self, name, path=None, target=None):
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        for file in (spec.origin, getattr(spec, "cached", None)):
            if isinstance(file, str) and os.path.isabs(file):
                status = _status(Path(file))
                if status is not None and status[2] > self.record.since:
                    raise _tampered(self.record.label, Path(file), "changed")
        return spec

"""Where a candidate runs without a sandbox: did it change the code that later runs execute?

A candidate that can write the user's files can append to an installed module of this package
(an editable install points into the repository) or add a ``.pth`` file to site-packages (which
every later Python process runs). Without a sandbox (:mod:`dpbandits.audit.sandbox`) nothing
stops that; :class:`Record` detects it: the size, modification time and SHA-256 of the package's
own source files and of every ``.pth`` file of site-packages, taken when the command starts (so
an editable install stays editable between commands) and compared once every process of the
candidate has ended, before any result is printed or written. A change is the candidate's: one
line naming the file, exit status 2, no result.

What it does not watch: compiled caches (``__pycache__``, numba's), which the auditor itself
writes, and the rest of site-packages; docs/audit-protocol.md#isolation says so.
"""

from __future__ import annotations

import hashlib
import os
import site
from dataclasses import dataclass
from pathlib import Path

from ..errors import DPBanditsError

__all__ = ["Record", "watched_files"]


def watched_files() -> list[Path]:
    """The package's own source files and the ``.pth`` files of every site-packages folder."""
    package = Path(__file__).resolve().parents[1]
    files = [Path(root) / name for root, dirs, names in os.walk(package)
             for name in names if name.endswith(".py") and "__pycache__" not in root]
    folders = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    user = site.getusersitepackages() if hasattr(site, "getusersitepackages") else None
    for folder in folders + ([user] if user else []):
        try:
            files += [Path(folder) / name for name in os.listdir(folder) if name.endswith(".pth")]
        except OSError:
            continue
    return sorted(set(files))


def _state(path: Path) -> tuple[int, int, str] | None:
    try:
        info = path.stat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns, digest


@dataclass
class Record:
    """The watched files' states when the command started."""

    states: dict[Path, tuple[int, int, str] | None]

    @classmethod
    def take(cls) -> "Record":
        return cls({path: _state(path) for path in watched_files()})

    def check(self, label: str) -> None:
        """Raise, naming the first file that appeared, vanished or changed since :meth:`take`."""
        now = {path: _state(path) for path in watched_files()}
        for path in sorted(set(now) | set(self.states)):
            before, after = self.states.get(path), now.get(path)
            if before == after or (before is not None and after is not None
                                   and before[::2] == after[::2]):
                continue                    # unchanged, or touched with the same content
            what = ("appeared" if before is None else "vanished" if after is None
                    else "changed")
            raise DPBanditsError(
                f"{label}: {path} {what} while the candidate ran, without a sandbox: the "
                f"candidate's doing (exit status 2, no result); a changed module of this package "
                f"or a .pth file changes every later run: restore it (reinstall dpbandits, "
                f"remove the .pth file) and audit where there is a sandbox "
                f"(docs/audit-protocol.md#isolation)")

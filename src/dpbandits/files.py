"""Writing result files atomically: a temporary file in the same folder, then a rename.

A reader (or an interrupted run resumed later) sees either the previous file or the whole new
one, never a half-written file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import IO, Any, Callable

__all__ = ["atomic_write", "write_atomically"]


def atomic_write(path: str | Path, write: Callable[[IO[Any]], Any], mode: str = "w") -> None:
    """Call ``write(handle)`` on a temporary file opened with ``mode`` and rename it to ``path``."""
    path = Path(path)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(descriptor, mode, **({"newline": ""} if "b" not in mode else {})) as handle:
            write(handle)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def write_atomically(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` (text or bytes) to ``path`` atomically."""
    atomic_write(path, lambda handle: handle.write(data), "wb" if isinstance(data, bytes) else "w")

"""Writing result files atomically: a temporary file in the same folder, then a rename.

A reader (or an interrupted run resumed later) sees either the previous file or the whole new
one, never a half-written file. The file gets the mode any other tool would give it: 0666 less
the user's umask (the temporary file starts private, as ``mkstemp`` makes it).
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path
from typing import IO, Any, Callable

__all__ = ["atomic_write", "write_atomically", "current_umask", "check_names"]


def atomic_write(path: str | Path, write: Callable[[IO[Any]], Any], mode: str = "w") -> None:
    """Call ``write(handle)`` on a temporary file opened with ``mode`` and rename it to ``path``."""
    path = Path(path)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(descriptor, mode, **({"newline": ""} if "b" not in mode else {})) as handle:
            write(handle)
            os.chmod(handle.fileno(), 0o666 & ~current_umask())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


_UMASK_LOCK = threading.Lock()


def current_umask() -> int:
    """The process's umask (read without changing it where the system allows)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_LOCK:                   # elsewhere: set and restore, under a lock
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def write_atomically(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` (text or bytes) to ``path`` atomically."""
    atomic_write(path, lambda handle: handle.write(data), "wb" if isinstance(data, bytes) else "w")


def check_names(folder: str | Path, names: list[str] | tuple[str, ...]) -> None:
    """Check, before any work, that :func:`atomic_write` can write each of ``names`` in
    ``folder``: a name built from a command's arguments may be longer than the file system
    allows (255 bytes on most), or the folder unreachable (a symlink loop). Each name's
    temporary file is created and removed; a failure raises
    :class:`~dpbandits.errors.DPBanditsError` naming the file and the reason."""
    from .errors import DPBanditsError

    for name in names:
        try:
            descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}.")
        except OSError as error:
            shown = name if len(name) <= 60 else name[:57] + "..."
            limit = _name_limit(folder)
            why = (f"the name is {len(os.fsencode(name))} bytes, and with its temporary file's "
                   f"10 more it must fit in the file system's {limit}" if limit and
                   len(os.fsencode(name)) + 10 > limit else (error.strerror or str(error)))
            raise DPBanditsError(f"cannot write {shown!r} in {str(folder)!r}: {why} (nothing was "
                                 f"run; choose shorter arguments or another --out)") from None
        os.close(descriptor)
        os.unlink(temporary)


def _name_limit(folder: str | Path) -> int | None:
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        return None

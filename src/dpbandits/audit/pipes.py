"""An external program's pipes, read and written on threads with bounded memory: its output
lines (a line longer than the limit ends the reading), the last lines of its standard error (a
flood stops it), its input; what it wrote is repeated only as data (:func:`shown`)."""

from __future__ import annotations

import collections
import queue
import signal

from .quoting import quoted

__all__ = ["STDERR_LINES", "STDERR_CHUNK", "STDERR_FLOOD", "END_OF_OUTPUT", "TOO_LONG", "FLOODED",
           "pump_lines", "keep_tail", "feed", "shown", "status_text"]

STDERR_LINES = 12
"""Lines of the program's stderr quoted in an error message."""

STDERR_CHUNK = 4096
"""Bytes of standard error read at a time: a program that never ends a line still costs at most
``STDERR_LINES`` chunks of memory."""

STDERR_FLOOD = 64 * 2 ** 20
"""Bytes of standard error after which the program is stopped as flooding it."""

END_OF_OUTPUT = object()
"""Queued when the program's standard output ends."""

TOO_LONG = object()
"""Queued when an output line is longer than the limit (the reading stops)."""

FLOODED = object()
"""Queued when standard error passes :data:`STDERR_FLOOD` bytes."""


def pump_lines(stream, lines: queue.SimpleQueue, limit: int) -> None:
    """Queue the program's output lines; a line longer than ``limit`` bytes ends the reading
    (the line is never held whole: memory stays bounded whatever the program writes)."""
    try:
        while line := stream.readline(limit + 1):
            if len(line) > limit:
                lines.put(TOO_LONG)
                return
            lines.put(line)
    except (OSError, ValueError):
        pass
    finally:
        lines.put(END_OF_OUTPUT)


def keep_tail(stream, tail: collections.deque, written: list[int], lines: queue.SimpleQueue) -> None:
    """Keep the last lines (or chunks) of standard error; report a flood once."""
    try:
        while chunk := stream.readline(STDERR_CHUNK):
            tail.append(chunk[:300])
            written[0] += len(chunk)
            if written[0] > STDERR_FLOOD:
                lines.put(FLOODED)
                return
    except (OSError, ValueError):
        pass


def feed(stream, outbox: queue.SimpleQueue) -> None:
    """Write messages to the program's stdin; ``None`` closes it. A broken pipe ends feeding: the
    reader side then reports how the program ended."""
    try:
        while (data := outbox.get()) is not None:
            stream.write(data)
            stream.flush()
    except (OSError, ValueError):
        pass
    finally:
        try:
            stream.close()
        except (OSError, ValueError):
            pass


def shown(text: str | bytes, limit: int = 60) -> str:
    """The program's text as data: quoted, escaped, cut (:func:`~dpbandits.audit.isolation.quoted`)."""
    text = text if isinstance(text, str) else text.decode("ascii", "backslashreplace")
    return quoted(text, limit)


def status_text(status: int) -> str:
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"was killed by {name}"
    return f"exited with status {status}"

"""Connecting to a Dask cluster, for the functions that take a ``client``.

Everything that accepts ``client=`` gives the same numbers with or without one: the work is cut
into seeded blocks, and a cluster only changes where the blocks run.
"""

from __future__ import annotations

import re

from .errors import DPBanditsError

__all__ = ["dask_client", "check_scheduler_address", "CONNECT_TIMEOUT"]

CONNECT_TIMEOUT = 10.0
"""Seconds to wait for the scheduler before giving up."""

_HOST_PORT = re.compile(r"^(?:(?:tcp|tls|ws|wss)://)?(?:[^\s:/\[\]]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})$")
_OTHER = re.compile(r"^(?:inproc|ucx)://\S+$")


def check_scheduler_address(address: str) -> str:
    """Return ``address`` after checking it names a host and a port (``[tcp://]HOST:PORT``).

    In-process (``inproc://``) and UCX addresses are passed to Dask as they are; an in-process
    one works only inside the Python process that runs its cluster (:func:`dask_client` says so).
    """
    text = str(address)
    if _OTHER.match(text):
        return text
    match = _HOST_PORT.match(text)
    if match is None or not 0 < int(match.group(1)) < 65536:
        raise DPBanditsError(f"scheduler address must look like [tcp://]HOST:PORT with a port in "
                             f"1..65535, got {address!r}")
    return text


def dask_client(address: str | None):
    """A Dask client connected to ``address`` (None: no cluster); a clear error if unavailable."""
    if address is None:
        return None
    address = check_scheduler_address(address)
    try:
        from distributed import Client
    except ImportError:
        raise DPBanditsError("a scheduler needs Dask: pip install 'dpbandits[distributed]'") from None
    try:
        return Client(address, timeout=CONNECT_TIMEOUT)
    except Exception as error:
        if address.lower().startswith("inproc://"):
            raise DPBanditsError(
                f"cannot reach the in-process Dask scheduler at {address!r}: an inproc:// address "
                "works only inside the Python process that runs that cluster (e.g. "
                "LocalCluster(processes=False), with dpbandits called from the same process); "
                "from a shell, start `dask scheduler` and give its [tcp://]HOST:PORT") from None
        if not isinstance(error, (OSError, TimeoutError, ValueError)):
            raise
        raise DPBanditsError(f"cannot reach the Dask scheduler at {address!r}: {error}") from None

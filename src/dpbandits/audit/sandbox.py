"""What the operating system offers against a hostile candidate, through raw system calls.

Standard library only (``ctypes``, ``os``), so that it also works before anything else is
imported. On Linux:

* :func:`protect_auditor`: ``prctl(PR_SET_DUMPABLE, 0)``. A process of the same user can then
  no longer open the auditor's ``/proc/<pid>/fd/*``, ``mem`` or ``environ`` (the kernel checks
  ptrace access, which a non-dumpable process refuses to its own user unless that user holds
  ``CAP_SYS_PTRACE``), so a candidate cannot write to the auditor's standard output or read its
  environment. Children forked from the auditor inherit it until they execute a program.
* :func:`confine_host`, in a host process before it loads a candidate: it dies with the
  auditor (``PR_SET_PDEATHSIG``), keeps the processes it starts as its descendants even when
  they detach (``PR_SET_CHILD_SUBREAPER``), can gain no privileges (``PR_SET_NO_NEW_PRIVS``),
  and enters a Landlock domain (Linux 5.13 or later, unprivileged): it may read and execute
  every file, and create, write or remove files only under its own temporary folder (and write
  ``/dev/null``); from Landlock ABI 6 on it can signal, and connect to abstract sockets of, only
  processes of its own domain (its descendants). Landlock binds root as well: the domain is
  checked after the usual permissions, and is inherited by every process it starts.
* :func:`end_tree`: stop a host and every process it started, detached ones included.

What remains possible inside the domain is listed in docs/audit-protocol.md#isolation.
"""

from __future__ import annotations

import ctypes
import errno
import os
import signal
import sys
import time
from dataclasses import dataclass

__all__ = ["Sandbox", "status", "protect_auditor", "confine_host", "end_tree", "descendants"]

PR_SET_PDEATHSIG = 1
PR_GET_DUMPABLE = 3
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_DROP = 24
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
LINUX_CAPABILITY_VERSION_3 = 0x20080522

SYS_LANDLOCK_CREATE_RULESET = 444
"""The Landlock system calls' numbers: one table for every architecture (added in Linux 5.13)."""
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
"""Landlock's file-system access rights (``LANDLOCK_ACCESS_FS_*``)."""
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15

SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1
"""Landlock's scopes (ABI 6)."""


def _handled_fs(abi: int) -> int:
    """Every file-system right the kernel's Landlock ABI knows: a right not handled is allowed."""
    rights = (1 << 13) - 1                  # ABI 1: EXECUTE .. MAKE_SYM
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


READ_EVERYWHERE = EXECUTE | READ_FILE | READ_DIR
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
"""The rights that apply to a file (the others apply to directories only)."""


@dataclass(frozen=True)
class Sandbox:
    """Whether a host can be confined here, and how: ``abi`` is Landlock's ABI version (0: none)
    and ``reason`` says why there is none."""

    abi: int
    reason: str = ""

    @property
    def available(self) -> bool:
        return self.abi > 0

    def line(self) -> str:
        """The one line every audit of a Python candidate states."""
        if not self.available:
            return f"candidate not sandboxed: {self.reason}"
        signals = ("; it can signal only the processes it started" if self.abi >= 6
                   else "; it can still signal other processes of the user")
        return (f"candidate sandboxed (Landlock ABI {self.abi}): it may read files and write "
                f"only its own temporary folder{signals}")


_STATUS: Sandbox | None = None


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def status() -> Sandbox:
    """The sandbox a host gets on this machine (probed once, without changing this process)."""
    global _STATUS
    if _STATUS is None:
        _STATUS = _probe()
    return _STATUS


def _probe() -> Sandbox:
    if not sys.platform.startswith("linux"):
        return Sandbox(0, f"Landlock is a Linux feature and this system is {sys.platform}")
    if os.environ.get("DPBANDITS_NO_SANDBOX"):
        return Sandbox(0, "DPBANDITS_NO_SANDBOX is set in the environment")
    try:
        libc = _libc()
        abi = libc.syscall(ctypes.c_long(SYS_LANDLOCK_CREATE_RULESET), None, ctypes.c_size_t(0),
                           ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))
        code = ctypes.get_errno()
    except (OSError, AttributeError) as error:
        return Sandbox(0, f"the C library's syscall() is not reachable ({error})")
    if abi > 0:
        return Sandbox(int(abi))
    release = os.uname().release
    if code == errno.ENOSYS:
        return Sandbox(0, f"this kernel ({release}) has no Landlock (Linux 5.13 or later "
                          f"built with it is needed)")
    if code == errno.EOPNOTSUPP:
        return Sandbox(0, f"Landlock is disabled in this kernel ({release}; add it to the "
                          f"lsm= boot parameter)")
    return Sandbox(0, f"Landlock could not be queried on this kernel ({release}): "
                      f"{os.strerror(code)}")


def _prctl(option: int, value: int) -> int:
    libc = _libc()
    result = libc.prctl(ctypes.c_int(option), ctypes.c_ulong(value), ctypes.c_ulong(0),
                        ctypes.c_ulong(0), ctypes.c_ulong(0))
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"prctl({option}): {os.strerror(code)}")
    return result


def protect_auditor() -> bool:
    """Make this process non-dumpable (Linux): its ``/proc`` entries that give access to its
    descriptors, memory and environment refuse other processes of its user. True when done."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        _prctl(PR_SET_DUMPABLE, 0)
    except (OSError, AttributeError):
        return False
    return True


def dumpable() -> bool:
    """Whether this process is dumpable (reachable through /proc by its user)."""
    return bool(_prctl(PR_GET_DUMPABLE, 0))


def confine_host(writable: str, parent: int, sandbox: Sandbox, with_parent_death: bool) -> None:
    """Confine the calling process (a host, just forked): die with ``parent`` (when
    ``with_parent_death``: the kernel ties it to the forking thread), adopt detached
    descendants, gain no privileges, and enter the Landlock domain of ``sandbox`` with write
    access below ``writable`` only. Raises OSError when a step fails."""
    if not sys.platform.startswith("linux"):
        return
    if with_parent_death:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:          # the auditor ended before the line above
            os._exit(0)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    if sandbox.available:
        _landlock(sandbox.abi, writable)
    _drop_capabilities()


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def _drop_capabilities() -> None:
    """Give up every capability, for good (a host run by root would otherwise pass the ptrace
    checks that protect the auditor's /proc entries, and regain them by executing a program)."""
    libc = _libc()
    for number in range(64):                # the bounding set, while CAP_SETPCAP is held
        if libc.prctl(ctypes.c_int(PR_CAPBSET_DROP), ctypes.c_ulong(number), ctypes.c_ulong(0),
                      ctypes.c_ulong(0), ctypes.c_ulong(0)) < 0 and ctypes.get_errno() == errno.EINVAL:
            break                           # past the kernel's last capability
    libc.prctl(ctypes.c_int(PR_CAP_AMBIENT), ctypes.c_ulong(PR_CAP_AMBIENT_CLEAR_ALL),
               ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
    header = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    if libc.capset(ctypes.byref(header), data) < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"capset: {os.strerror(code)}")


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _landlock(abi: int, writable: str) -> None:
    libc = _libc()
    handled = _handled_fs(abi)
    attr = _RulesetAttr(handled, 0, (SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET) if abi >= 6 else 0)
    size = 24 if abi >= 6 else 8            # the struct's size the ABI knows
    ruleset = libc.syscall(ctypes.c_long(SYS_LANDLOCK_CREATE_RULESET), ctypes.byref(attr),
                           ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"landlock_create_ruleset: {os.strerror(code)}")
    try:
        _allow(libc, ruleset, "/", READ_EVERYWHERE & handled, directory=True)
        _allow(libc, ruleset, writable, handled, directory=True)
        _allow(libc, ruleset, os.devnull, (READ_FILE | WRITE_FILE | TRUNCATE) & handled,
               directory=False)
        if libc.syscall(ctypes.c_long(SYS_LANDLOCK_RESTRICT_SELF), ctypes.c_int(ruleset),
                        ctypes.c_uint32(0)) < 0:
            code = ctypes.get_errno()
            raise OSError(code, f"landlock_restrict_self: {os.strerror(code)}")
    finally:
        os.close(ruleset)


def _allow(libc, ruleset: int, path: str, access: int, directory: bool) -> None:
    fd = os.open(path, os.O_PATH | (os.O_DIRECTORY if directory else 0) | os.O_CLOEXEC)
    try:
        rule = _PathBeneath(access & (-1 if directory else FILE_RIGHTS), fd)
        if libc.syscall(ctypes.c_long(SYS_LANDLOCK_ADD_RULE), ctypes.c_int(ruleset),
                        ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH), ctypes.byref(rule),
                        ctypes.c_uint32(0)) < 0:
            code = ctypes.get_errno()
            raise OSError(code, f"landlock_add_rule({path}): {os.strerror(code)}")
    finally:
        os.close(fd)


# ---- ending a host and what it started ---------------------------------------------------------

def _parents() -> dict[int, int]:
    """Every process's parent, read from /proc (empty where there is no /proc)."""
    parents: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return parents
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                text = handle.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses, so split at the last ')'
        fields = text[text.rfind(b")") + 2:].split()
        if len(fields) > 1:
            parents[int(name)] = int(fields[1])
    return parents


def descendants(pid: int) -> set[int]:
    """The processes below ``pid`` (its children, theirs, ...), read from /proc."""
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    found: set[int] = set()
    pending = [pid]
    while pending:
        for child in children.get(pending.pop(), ()):
            if child not in found:
                found.add(child)
                pending.append(child)
    return found


ROUNDS = 50
"""Passes of stop-and-look over a host's descendants before they are killed: a process stopped
cannot start another, so a pass that finds no new process ends it."""


def end_tree(pid: int) -> None:
    """Stop ``pid`` and every process below it (a host adopts what its descendants detach, so
    they stay below it), then kill them all, and the process group ``pid`` leads."""
    stopped: set[int] = set()
    _signal(pid, signal.SIGSTOP)
    for _ in range(ROUNDS):
        fresh = descendants(pid) - stopped
        if not fresh:
            break
        for child in fresh:
            _signal(child, signal.SIGSTOP)
        stopped |= fresh
    for child in stopped | descendants(pid):
        _signal(child, signal.SIGKILL)
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    _signal(pid, signal.SIGKILL)


def _signal(pid: int, number: int) -> None:
    try:
        os.kill(pid, number)
    except (ProcessLookupError, PermissionError):
        pass


def wait_gone(pids: set[int], seconds: float) -> set[int]:
    """The processes of ``pids`` still present after up to ``seconds`` (zombies count as gone)."""
    deadline = time.monotonic() + seconds
    left = set(pids)
    while left:
        left = {pid for pid in left if _alive(pid)}
        if not left or time.monotonic() >= deadline:
            break
        time.sleep(0.02)
    return left


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read()
    except OSError:
        return False
    return text[text.rfind(b")") + 2:][:1] not in (b"Z", b"X")


# ---- external programs ------------------------------------------------------------------------

LAUNCH_FAILED = 71
"""Exit status of the launcher when it could not confine itself (the program never started)."""


def launcher(folder: str, sandbox: Sandbox, argv: list[str]) -> list[str]:
    """The command that runs ``argv`` confined as a host is (:func:`confine_host`, writing only
    below ``folder``): this file run by the same Python in isolated mode, standard library only,
    which confines itself and then executes the program in its place (same process: its exit
    status and signals are the program's)."""
    return [sys.executable, "-I", "-S", os.path.abspath(__file__), folder, str(sandbox.abi),
            "--", *argv]


def _launch(args: list[str]) -> None:
    folder, abi, _, *argv = args
    try:
        confine_host(folder, os.getppid(), Sandbox(int(abi), "not available"), True)
    except BaseException as error:
        os.write(2, f"the program could not be confined: {error}\n".encode())
        os._exit(LAUNCH_FAILED)
    os.environ["TMPDIR"] = folder
    try:
        os.execvp(argv[0], argv)
    except OSError as error:
        os.write(2, f"could not start {argv[0]!r}: {error.strerror or error}\n".encode())
        os._exit(127)


if __name__ == "__main__":
    _launch(sys.argv[1:])

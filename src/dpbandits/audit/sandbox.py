"""What the operating system offers against a hostile candidate, through raw system calls.

Standard library only (``ctypes``, ``os``), so that it also works before anything else is
imported. On Linux:

* :func:`protect_auditor`: ``prctl(PR_SET_DUMPABLE, 0)``. A process of the same user can then
  no longer open the auditor's ``/proc/<pid>/fd/*``, ``mem`` or ``environ`` (the kernel checks
  ptrace access, which a non-dumpable process refuses to its own user unless that user holds
  ``CAP_SYS_PTRACE``), so a candidate cannot write to the auditor's standard output or read its
  environment. Children forked from the auditor inherit it until they execute a program.
* :func:`confine_host`, in a host process before it loads a candidate (and in the launcher of
  an external program, :func:`launcher`), in this order:

  - when the auditor runs as root, the candidate does not: it runs as ``nobody`` (its own
    folder owned by it), keeping one capability, ``CAP_DAC_READ_SEARCH``, so that it can still
    read the files root could (metadata changes, ``chmod``, ``chown``, ``utime``, extended
    attributes, are refused by the ordinary permissions, which Landlock does not cover);
  - where the kernel allows it, a network namespace and a PID namespace of its own (through an
    unprivileged user namespace when the auditor is not root): no route out, and every process
    it starts, detached ones included, is killed by the kernel when its first process ends. The
    process the auditor started stays outside, waits, and exits as the candidate did;
  - it dies with the auditor (``PR_SET_PDEATHSIG``), can gain no privileges
    (``PR_SET_NO_NEW_PRIVS``), enters a Landlock domain (Linux 5.13 or later, unprivileged): it
    may read and execute every file, and create, write or remove files only under its own
    temporary folder (and write ``/dev/null``); from Landlock ABI 6 on it can signal, and connect
    to abstract sockets of, only processes of its own domain (its descendants). Landlock binds
    root as well and is inherited by every process it starts;
  - a seccomp filter (x86-64 and AArch64) refuses ``socket`` and ``io_uring_setup``: no new
    socket of any family, so no pathname unix socket (a docker or ssh-agent socket, D-Bus) and
    no TCP to this machine either; the channel to the auditor was made before;
  - every other capability is dropped, for good.
* :func:`end_tree`: stop a host and every process it started, detached ones included; without
  namespaces, :func:`adopt_orphans` and :func:`end_orphans` make the auditor the subreaper of
  what a host or program leaves behind when it ends itself, and end it.
* :func:`switched_off`: ``DPBANDITS_NO_SANDBOX`` (1 or true only) turns Landlock, the
  namespaces and the seccomp filter off; the change of user stays.

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
PR_SET_KEEPCAPS = 8
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
PR_CAP_AMBIENT_RAISE = 2
CAP_DAC_READ_SEARCH = 2
LINUX_CAPABILITY_VERSION_3 = 0x20080522
CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x20000, 0x10000000, 0x20000000, 0x40000000

SECCOMP_ARCHES = {"x86_64": (0xC000003E, 41, True), "aarch64": (0xC00000B7, 198, False)}
"""Per machine: the audit architecture, the number of ``socket`` and whether the x32 numbers
(bit 30) must be refused too. ``io_uring_setup`` is 425 on both."""
SYS_IO_URING_SETUP = 425

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
    """How a host is confined on this machine: ``abi`` is Landlock's ABI version (0: none) and
    ``reason`` says why there is none; ``user`` the (uid, gid) the candidate runs as when the
    auditor is root; ``namespaces`` whether it gets network and PID namespaces of its own,
    ``seccomp`` whether it can open no socket, and ``lacking`` why one of those two is missing."""

    abi: int
    reason: str = ""
    user: tuple[int, int] | None = None
    namespaces: bool = False
    seccomp: bool = False
    lacking: str = ""

    @property
    def available(self) -> bool:
        return self.abi > 0

    @property
    def complete(self) -> bool:
        """Landlock, no sockets and no process outliving the candidate: what
        ``--require-sandbox`` asks for."""
        return self.available and self.namespaces and self.seccomp

    def line(self) -> str:
        """The one line every audit of a candidate states."""
        if not self.available:
            head = f"candidate not sandboxed: {self.reason}"
        else:
            signals = ("; it can signal only the processes it started" if self.abi >= 6
                       else "; it can still signal other processes of the user")
            head = (f"candidate sandboxed (Landlock ABI {self.abi}): it may read files and write "
                    f"only its own temporary folder{signals}")
        return head + "".join(self.parts())

    def parts(self) -> list[str]:
        """What the line adds to Landlock's part: the user, the sockets, the processes."""
        parts = []
        if self.user is not None:
            parts.append(f"; it runs as uid {self.user[0]}, not root (reading with "
                         f"CAP_DAC_READ_SEARCH; metadata changes refused)")
        if self.seccomp:
            parts.append("; it can open no socket (seccomp)")
        if self.namespaces:
            parts.append("; it has a network of its own and its processes end with it "
                         "(namespaces)")
        if not (self.seccomp and self.namespaces) and self.lacking:
            parts.append(f"; {self.lacking}")
        return parts

    def short(self) -> str:
        """The line in brief, for the end of an error line."""
        if not self.available:
            return f"candidate not sandboxed: {self.reason}"
        parts = [f"Landlock ABI {self.abi}"]
        parts += [f"uid {self.user[0]}"] if self.user is not None else []
        parts += ["no sockets"] if self.seccomp else []
        parts += ["namespaces"] if self.namespaces else []
        return f"candidate sandboxed: {', '.join(parts)}"

    def missing(self) -> str:
        """What ``--require-sandbox`` finds missing (empty when :attr:`complete`)."""
        if not self.available:
            return self.reason
        return "" if self.complete else self.lacking


_STATUS: Sandbox | None = None


_LIBC = None


def _libc():
    global _LIBC
    if _LIBC is None:
        _LIBC = ctypes.CDLL(None, use_errno=True)
    return _LIBC


NO_SANDBOX = "DPBANDITS_NO_SANDBOX"
"""The environment variable that switches the sandbox off: ``1`` or ``true`` (any case; unset or
empty leaves it on)."""


def switched_off() -> bool:
    """Whether :data:`NO_SANDBOX` asks for no sandbox; ValueError for a value other than
    unset, empty, ``1`` or ``true``."""
    value = os.environ.get(NO_SANDBOX, "")
    if value == "":
        return False
    if value.lower() in ("1", "true"):
        return True
    raise ValueError(f"{NO_SANDBOX} must be 1 or true (or unset), got {value[:40]!r}")


def status() -> Sandbox:
    """The sandbox a host gets on this machine (probed once, without changing this process)."""
    global _STATUS
    if _STATUS is None:
        _STATUS = _probe()
    return _STATUS


def _unprivileged() -> tuple[int, int] | None:
    """The (uid, gid) a candidate of root runs as: ``nobody``'s (65534 where it is not named)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    try:
        import pwd

        entry = pwd.getpwnam("nobody")
        return entry.pw_uid, entry.pw_gid
    except (ImportError, KeyError):
        return 65534, 65534


def _probe() -> Sandbox:
    if not sys.platform.startswith("linux"):
        return Sandbox(0, f"Landlock is a Linux feature and this system is {sys.platform}",
                       lacking="it may open sockets and leave processes running")
    user = _unprivileged()
    if switched_off():
        return Sandbox(0, f"{NO_SANDBOX} is set in the environment", user,
                       lacking="it may open sockets and leave processes running")
    namespaces, seccomp, lacking = _probe_isolation(user)
    try:
        libc = _libc()
        abi = libc.syscall(ctypes.c_long(SYS_LANDLOCK_CREATE_RULESET), None, ctypes.c_size_t(0),
                           ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))
        code = ctypes.get_errno()
    except (OSError, AttributeError) as error:
        return Sandbox(0, f"the C library's syscall() is not reachable ({error})", user,
                       namespaces, seccomp, lacking)
    if abi > 0:
        return Sandbox(int(abi), "", user, namespaces, seccomp, lacking)
    release = os.uname().release
    if code == errno.ENOSYS:
        why = (f"this kernel ({release}) has no Landlock (Linux 5.13 or later built with it is "
               f"needed)")
    elif code == errno.EOPNOTSUPP:
        why = f"Landlock is disabled in this kernel ({release}; add it to the lsm= boot parameter)"
    else:
        why = f"Landlock could not be queried on this kernel ({release}): {os.strerror(code)}"
    return Sandbox(0, why, user, namespaces, seccomp, lacking)


def _probe_isolation(user: tuple[int, int] | None) -> tuple[bool, bool, str]:
    """Whether namespaces and the seccomp filter can be had here, tried in a child process."""
    machine = os.uname().machine
    _libc()
    try:
        pid = os.fork()
    except OSError as error:
        return False, False, f"it may open sockets and leave processes running ({error})"
    if pid == 0:
        code = 0
        try:
            _unshare(user)
        except BaseException:
            code |= 1
        try:
            _prctl(PR_SET_NO_NEW_PRIVS, 1)
            _seccomp(machine)
        except BaseException:
            code |= 2
        os._exit(code)
    _, status_ = os.waitpid(pid, 0)
    code = os.WEXITSTATUS(status_) if os.WIFEXITED(status_) else 3
    namespaces, seccomp = not code & 1, not code & 2
    missing = []
    if not seccomp:
        missing.append(f"it may open sockets (a seccomp filter needs x86-64 or AArch64 and a "
                       f"kernel that allows it; this is {machine})")
    if not namespaces:
        missing.append("it may reach this machine's network and leave processes running (this "
                       "kernel refuses new network and PID namespaces"
                       + ("" if user else ", or unprivileged user namespaces") + ")")
    return namespaces, seccomp, "; ".join(missing)


def _prctl(option: int, value: int) -> int:
    libc = _libc()
    result = libc.prctl(ctypes.c_int(option), ctypes.c_ulong(value), ctypes.c_ulong(0),
                        ctypes.c_ulong(0), ctypes.c_ulong(0))
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"prctl({option}): {os.strerror(code)}")
    return result


STARTS = 0
"""How many times this process was about to start a candidate's process (:func:`protect_auditor`
runs before each): a command that ends in an error after one started states the sandbox."""


def protect_auditor() -> bool:
    """Make this process non-dumpable (Linux): its ``/proc`` entries that give access to its
    descriptors, memory and environment refuse other processes of its user. True when done."""
    global STARTS
    STARTS += 1
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


def confine_host(writable: str, parent: int, sandbox: Sandbox, with_parent_death: bool) -> bool:
    """Confine the calling process (a host or the launcher, just forked) as the module's text
    says, with write access below ``writable`` only; die with ``parent`` when
    ``with_parent_death`` (the kernel ties it to the forking thread). Returns in the process that
    is to run the candidate: True when that process is watched from outside its namespaces (it
    need not watch ``parent`` itself). Raises OSError when a step fails."""
    if not sys.platform.startswith("linux"):
        return False
    user = sandbox.user if os.geteuid() == 0 else None
    if user is not None:
        os.chown(writable, *user)
    if with_parent_death:
        _die_with(parent)
    if sandbox.namespaces:
        _unshare(user)
        _keep(parent, with_parent_death)    # returns in the namespaces' first process
    if user is not None:
        _become(user)
    if sandbox.namespaces:
        _die_with(None)                     # with the keeper
    else:
        if with_parent_death and user is not None:
            _die_with(parent)               # a change of user cleared it
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    if sandbox.available:
        _landlock(sandbox.abi, writable)
    if sandbox.seccomp:
        _seccomp(os.uname().machine)
    _drop_capabilities(keep=user is not None)
    if sandbox.namespaces:
        _init()                             # returns in the candidate's process
    return sandbox.namespaces


def _die_with(parent: int | None) -> None:
    """SIGKILL when the parent ends; ``parent``: its pid, to check it has not ended already."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if parent is not None and os.getppid() != parent:
        os._exit(0)                         # the parent ended before the line above


def _unshare(user: tuple[int, int] | None) -> None:
    """New network and PID namespaces for the children of this process (root needs no user
    namespace for them; anyone else gets one, unprivileged)."""
    flags = CLONE_NEWNET | CLONE_NEWPID | (0 if os.geteuid() == 0 else CLONE_NEWUSER)
    if _libc().unshare(ctypes.c_int(flags)) < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"unshare: {os.strerror(code)}")


_STATUS_FD = -1
"""In the namespaces' first process: where it writes how the candidate's process ended."""


def _keep(parent: int, tied: bool) -> None:
    """Fork the namespaces' first process (which returns) and stay outside as the keeper: wait
    for it, then end as the candidate's process ended. Killing the keeper kills the first
    process (its death signal), and with it, by the kernel, every process of the namespace."""
    global _STATUS_FD
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        _STATUS_FD = write
        return
    os.close(write)
    try:
        _relay(pid, read, parent, tied)
    finally:
        os._exit(1)


def _relay(pid: int, read: int, parent: int, tied: bool) -> None:
    _only(read)
    while True:
        try:
            done, status_ = os.waitpid(pid, 0 if tied else os.WNOHANG)
        except ChildProcessError:
            done, status_ = pid, 0
        if done:
            break
        if not tied and os.getppid() != parent:     # the auditor has gone
            _signal(pid, signal.SIGKILL)
        time.sleep(0.05)
    data = os.read(read, 4)
    if len(data) == 4:
        status_ = int.from_bytes(data, "little", signed=True)
    if os.WIFSIGNALED(status_):
        number = os.WTERMSIG(status_)
        try:
            signal.signal(number, signal.SIG_DFL)
        except (OSError, ValueError):       # SIGKILL and SIGSTOP have no handler to reset
            pass
        try:                                # the keeper's own core (a copy of the auditor's
            import resource                 # memory for a host) is nobody's business

            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        except (ImportError, OSError, ValueError):
            pass
        os.kill(os.getpid(), number)
        os._exit(128 + number)
    os._exit(os.WEXITSTATUS(status_) if os.WIFEXITED(status_) else 1)


def _init() -> None:
    """In the namespaces' first process (confined already): fork the candidate's process
    (which returns), reap every orphan of the namespace until it ends, report its status to the
    keeper and end (the kernel then kills whatever is left in the namespace)."""
    pid = os.fork()
    if pid == 0:
        os.close(_STATUS_FD)
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        return
    _only(_STATUS_FD)
    while True:
        try:
            done, status_ = os.wait()
        except ChildProcessError:
            done, status_ = pid, 1 << 8
        except InterruptedError:
            continue
        if done == pid:
            break
    os.write(_STATUS_FD, int(status_).to_bytes(4, "little", signed=True))
    os._exit(0)


def _only(keep: int) -> None:
    """Close every descriptor but ``keep``; the standard ones read and write /dev/null (a
    keeper holds no end of the candidate's pipes)."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        if fd != null:
            os.dup2(null, fd)
    close_above_2(keep)


def close_above_2(keep: int) -> None:
    """Close every descriptor above the standard three but ``keep``."""
    try:
        descriptors = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        descriptors = list(range(3, 1024))
    for fd in descriptors:
        if fd > 2 and fd != keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _become(user: tuple[int, int]) -> None:
    """Root no more: ``user``'s uid and gid, no supplementary group, no capability but
    CAP_DAC_READ_SEARCH (kept through executing a program: ambient)."""
    libc = _libc()
    _drop_bounding(keep=CAP_DAC_READ_SEARCH)
    _prctl(PR_SET_KEEPCAPS, 1)
    uid, gid = user
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    _capset(1 << CAP_DAC_READ_SEARCH)
    if libc.prctl(ctypes.c_int(PR_CAP_AMBIENT), ctypes.c_ulong(PR_CAP_AMBIENT_RAISE),
                  ctypes.c_ulong(CAP_DAC_READ_SEARCH), ctypes.c_ulong(0), ctypes.c_ulong(0)) < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"prctl(PR_CAP_AMBIENT): {os.strerror(code)}")


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8),
                ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_SockFilter))]


def _seccomp(machine: str) -> None:
    """Refuse ``socket`` and ``io_uring_setup`` (EACCES), and every call of another
    architecture's numbering (the 32-bit and x32 entries reach the other socket calls)."""
    if machine not in SECCOMP_ARCHES:
        raise OSError(errno.ENOSYS, f"no seccomp filter for {machine}")
    arch, socket_number, x32 = SECCOMP_ARCHES[machine]
    load, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    allow, refuse = 0x7FFF0000, 0x00050000 | errno.EACCES
    program = [(load, 0, 0, 4), (jeq, 1, 0, arch), (ret, 0, 0, refuse), (load, 0, 0, 0),
               (jge, 3, 0, 0x40000000) if x32 else (jeq, 3, 0, 0xFFFFFFFF),
               (jeq, 2, 0, socket_number), (jeq, 1, 0, SYS_IO_URING_SETUP),
               (ret, 0, 0, allow), (ret, 0, 0, refuse)]
    filters = (_SockFilter * len(program))(*[_SockFilter(*line) for line in program])
    fprog = _SockFprog(len(program), filters)
    libc = _libc()
    if libc.prctl(ctypes.c_int(PR_SET_SECCOMP), ctypes.c_ulong(SECCOMP_MODE_FILTER),
                  ctypes.byref(fprog), ctypes.c_ulong(0), ctypes.c_ulong(0)) < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"seccomp: {os.strerror(code)}")


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def _drop_bounding(keep: int = -1) -> None:
    libc = _libc()
    for number in range(64):                # the bounding set, while CAP_SETPCAP is held
        if number != keep and libc.prctl(
                ctypes.c_int(PR_CAPBSET_DROP), ctypes.c_ulong(number), ctypes.c_ulong(0),
                ctypes.c_ulong(0), ctypes.c_ulong(0)) < 0 and ctypes.get_errno() == errno.EINVAL:
            break                           # past the kernel's last capability


def _capset(low: int) -> None:
    header = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    data[0].effective = data[0].permitted = data[0].inheritable = low
    if _libc().capset(ctypes.byref(header), data) < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"capset: {os.strerror(code)}")


def _drop_capabilities(keep: bool = False) -> None:
    """Give up every capability, for good (a host run by root would otherwise pass the ptrace
    checks that protect the auditor's /proc entries, and regain them by executing a program);
    ``keep``: a former root's CAP_DAC_READ_SEARCH stays."""
    if keep:
        return                              # _become left that one only
    _drop_bounding()
    _libc().prctl(ctypes.c_int(PR_CAP_AMBIENT), ctypes.c_ulong(PR_CAP_AMBIENT_CLEAR_ALL),
                  ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
    _capset(0)


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

def _stats() -> dict[int, tuple[int, int]]:
    """Every process's parent and session, read from /proc (empty where there is no /proc)."""
    found: dict[int, tuple[int, int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                text = handle.read()
        except OSError:
            continue
        # pid (comm) state ppid pgrp session ...: comm may hold spaces and parentheses, so split
        # at the last ')'
        fields = text[text.rfind(b")") + 2:].split()
        if len(fields) > 3:
            found[int(name)] = int(fields[1]), int(fields[3])
    return found


def _parents() -> dict[int, int]:
    """Every process's parent, read from /proc (empty where there is no /proc)."""
    return {pid: parent for pid, (parent, _) in _stats().items()}


ROOTS: set[int] = set()
"""The processes this auditor started for candidates and has not ended yet (hosts, programs)."""


def adopt_orphans() -> None:
    """Where the candidate gets no PID namespace: make the auditor the subreaper of what it
    starts, so that a process a candidate detaches and leaves behind becomes the auditor's
    child (not init's) and :func:`end_orphans` finds it."""
    if sys.platform.startswith("linux") and not status().namespaces:
        try:
            _prctl(PR_SET_CHILD_SUBREAPER, 1)
        except (OSError, AttributeError):
            pass


def end_orphans() -> None:
    """End (and reap) every process a candidate left behind: the auditor's children in a
    session other than its own that are not a live host or program of :data:`ROOTS` (a
    candidate runs in sessions of its own; the auditor starts its own helpers in its session)."""
    if not sys.platform.startswith("linux") or status().namespaces:
        return
    me, session = os.getpid(), os.getsid(0)
    for pid, (parent, sid) in _stats().items():
        if parent == me and sid != session and pid not in ROOTS:
            end_tree(pid)
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


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

LAUNCHES = sys.platform.startswith("linux")
"""Whether external programs start through :func:`launcher` (with or without Landlock)."""

LAUNCH_FAILED = 71
"""Exit status of the launcher when it could not confine itself (the program never started)."""


def launcher(folder: str, sandbox: Sandbox, argv: list[str]) -> list[str]:
    """The command that runs ``argv`` confined as a host is (:func:`confine_host`, writing only
    below ``folder``): this file run by the same Python in isolated mode, standard library only,
    which confines itself and then executes the program in its place (in namespaces, the
    process started stays outside as their keeper and ends as the program did)."""
    user = "-" if sandbox.user is None else f"{sandbox.user[0]}:{sandbox.user[1]}"
    return [sys.executable, "-I", "-S", os.path.abspath(__file__), folder, str(sandbox.abi), user,
            str(int(sandbox.namespaces)), str(int(sandbox.seccomp)), "--", *argv]


def _launch(args: list[str]) -> None:
    folder, abi, user, namespaces, seccomp, _, *argv = args
    box = Sandbox(int(abi), "not available",
                  None if user == "-" else tuple(int(x) for x in user.split(":")),
                  namespaces == "1", seccomp == "1")
    try:
        confine_host(folder, os.getppid(), box, True)
    except BaseException as error:
        os.write(2, f"the program could not be confined: {error}\n".encode())
        os._exit(LAUNCH_FAILED)
    os.environ["TMPDIR"] = folder
    try:
        os.execvp(argv[0], argv)
    except OSError as error:
        who = "" if box.user is None or os.getuid() == 0 else f" (as uid {os.getuid()})"
        os.write(2, f"could not start {argv[0]!r}{who}: {error.strerror or error}\n".encode())
        os._exit(127)


if __name__ == "__main__":
    _launch(sys.argv[1:])

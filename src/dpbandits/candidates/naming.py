"""Naming a candidate: the text ``MODULE:OBJECT`` or ``FILE.py:OBJECT`` (optionally with literal
arguments) to the object it names, an external program (:class:`Command`), and a short name for
output files. Imported where the candidate runs (its host process), never in the auditor's."""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib
import importlib.metadata
import importlib.util
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ..audit.external import DEFAULT_TIMEOUT
from ..audit.protocols import is_learning_policy
from ..errors import DPBanditsError

__all__ = ["NAMESPACES", "Command", "resolve", "short_name"]

NAMESPACES: dict[str, tuple[str, str]] = {"mabwiser": ("mabwiser.mab", "LearningPolicy")}
"""``MODULE:NAME`` looked up in another namespace when MODULE has no NAME: ``mabwiser:UCB1`` is
``mabwiser.mab:LearningPolicy.UCB1``."""


@dataclass(frozen=True)
class Command:
    """An external program speaking the line protocol (docs/audit-protocol.md)."""

    argv: str | Sequence[str]
    """The program and its arguments, one string split like a POSIX shell would, or a list."""
    protocol: str = "table"
    """``table`` (the whole table, then T actions) or ``interactive`` (round by round)."""
    timeout: float = DEFAULT_TIMEOUT
    """Seconds allowed for each expected line."""


def resolve(target: str) -> Any:
    """The object named by ``MODULE:OBJECT`` or ``path/to/file.py:OBJECT``, optionally
    ``OBJECT(arguments)``.

    A module is imported with the current folder first on the path; a file is loaded as a module
    of its own (named after the file), or, inside a package (folders with ``__init__.py``), as
    that package's module with the package's parent folder first on the path. Dotted OBJECT names
    an attribute of an attribute; a MODULE of :data:`NAMESPACES` without OBJECT is looked up in
    its namespace. Arguments are Python literals, bound to the object (a MABWiser learning policy
    is built with them at once: it is an immutable tuple).
    """
    text = str(target).strip()
    arguments: tuple[tuple, dict] | None = None
    if "(" in text and text.endswith(")"):     # the arguments may hold ':' (a dict), not the name
        opening = text.find("(")
        text, arguments = text[:opening].strip(), _literal_arguments(text[opening:], str(target))
    source, sep, attribute = text.rpartition(":")
    if not sep or not source or not attribute:
        raise DPBanditsError(f"a Python candidate is named MODULE:OBJECT or FILE.py:OBJECT "
                             f"(optionally OBJECT(name=value, ...)), got {target!r}")
    if source.endswith(".py"):
        module = _load_file(Path(source))
    else:
        module = _import(source)
    value = _attribute(module, source, attribute)
    if arguments is None:
        return value
    args, kwargs = arguments
    if not callable(value):
        raise DPBanditsError(f"{target!r}: {attribute} is not a class or a factory, so it takes "
                             f"no arguments")
    if isinstance(value, type) and value.__qualname__.startswith("LearningPolicy."):
        try:
            built = value(*args, **kwargs)
        except Exception as error:
            raise DPBanditsError(f"{target!r}: {type(error).__name__}: {error}") from None
        if is_learning_policy(built):
            return built
    bound = functools.partial(value, *args, **kwargs)
    functools.update_wrapper(bound, value)      # type: ignore[arg-type]
    return bound


def _literal_arguments(call: str, target: str) -> tuple[tuple, dict]:
    """``(1, alpha=0.5)`` as ``((1,), {"alpha": 0.5})``: literals only, nothing is run."""
    try:
        node = ast.parse(f"f{call}", mode="eval").body
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            raise ValueError("not a call")
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None
                                                                      for k in node.keywords):
            raise ValueError("* and ** are not literals")
        args = tuple(ast.literal_eval(a) for a in node.args)
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        raise DPBanditsError(f"{target!r}: the arguments in OBJECT(...) must be Python literals "
                             f"(numbers, strings, True, False, None, tuples, lists, dicts), as "
                             f"in OBJECT(alpha=1, name='x')") from None
    return args, kwargs


def _attribute(module: Any, source: str, attribute: str) -> Any:
    value: Any = module
    for part in attribute.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            break
    else:
        return value
    if source in NAMESPACES:
        where, namespace = NAMESPACES[source]
        value = getattr(_import(where), namespace)
        names = [name for name in dir(value) if not name.startswith("_")]
        for part in attribute.split("."):
            if not hasattr(value, part):
                raise DPBanditsError(f"{source!r} has no {attribute!r}; {source}:NAME names one "
                                     f"of {where}.{namespace}'s: {', '.join(names)}")
            value = getattr(value, part)
        return value
    raise DPBanditsError(f"{source!r} has no {attribute!r}")


def _import(source: str) -> Any:
    sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(source)
    except Exception as error:  # the user's module may fail in any way
        raise DPBanditsError(f"cannot import {source!r}: {type(error).__name__}: "
                             f"{_one_line(error)}{_dependency_hint(source, error)}") from None
    finally:
        sys.path.pop(0)


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())


def _dependency_hint(source: str, error: BaseException) -> str:
    """Why a library failed to import when the failure is in another package it imports: that
    package's installed version (a library that needs an older SciPy, say), or its absence."""
    failed = getattr(error, "name", None)
    if not isinstance(error, ImportError) or not failed:
        return ""
    top, own = str(failed).split(".")[0], source.split(".")[0]
    if top == own:
        return ""
    if isinstance(error, ModuleNotFoundError) and str(failed) == top:
        return f" ({source} needs the module {top!r}, which is not installed)"
    try:
        version = importlib.metadata.version(top)
    except Exception:
        return ""
    named = re.match(r"cannot import name '([\w.]+)' from '([\w.]+)'", str(error))
    removed = REMOVED.get(f"{named.group(2)}.{named.group(1)}") if named else None
    if removed is not None:
        package, release = removed
        major, minor = release.split(".")[:2]
        return (f" ({source} imports {named.group(2)}.{named.group(1)}, which {package} removed "
                f"in {release}; the installed {package} is {version}: install "
                f"'{package}<{major}.{minor}', as pip install 'dpbandits[ecosystem]' does)")
    return (f" ({source} does not work with the installed {top} {version}: it may need an "
            f"older version of {top})")


REMOVED = {"scipy.special.btdtri": ("scipy", "1.15.0")}
"""Names the ecosystem's libraries import that a dependency removed, and the release that
removed them (checked by importing: SciPy 1.14.1 has ``scipy.special.btdtri``, 1.15.0 has not;
SMPyBandits 0.9.7's Beta posterior imports it, so its policies do not import with SciPy >= 1.15)."""


def _load_file(path: Path):
    if not path.is_file():
        raise DPBanditsError(f"no such Python file: {str(path)!r}")
    root, dotted = _package_of(path.resolve())
    if dotted is not None:      # a module inside a package: imported as the package's module
        sys.path.insert(0, str(root))
        try:
            return importlib.import_module(dotted)
        except Exception as error:
            raise DPBanditsError(f"cannot load {str(path)!r} (as {dotted}, from {str(root)!r}): "
                                 f"{type(error).__name__}: {_one_line(error)}"
                                 f"{_dependency_hint(dotted, error)}") from None
        finally:
            sys.path.pop(0)
    name = f"dpbandits_candidate_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise DPBanditsError(f"cannot load {str(path)!r} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module        # so that its classes can be pickled
    sys.path.insert(0, str(path.resolve().parent))
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[name]
        raise DPBanditsError(f"cannot load {str(path)!r}: {type(error).__name__}: "
                             f"{_one_line(error)}{_dependency_hint(path.stem, error)}") from None
    finally:
        sys.path.pop(0)
    return module


def _package_of(path: Path) -> tuple[Path, str | None]:
    """The folder above the outermost package holding ``path`` and the module's dotted name
    (None when its folder is not a package)."""
    parts = [path.stem] if path.name != "__init__.py" else []
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder.name.isidentifier():
        parts.insert(0, folder.name)
        folder = folder.parent
    if folder == path.parent or not parts:
        return path.parent, None
    return folder, ".".join(parts)


def short_name(candidate: Any) -> str:
    """A short file-name-safe name of a candidate for output names (``validate-ALGO-NAME``):
    its words with folders and ``.py``/``.sh`` dropped, then the first 8 hexadecimal digits of
    the SHA-256 of the whole text (``sh examples/ucb1.sh`` gives ``sh-ucb1-`` and 8 digits,
    ``impl.py:PlainLazyUCB`` gives ``impl-PlainLazyUCB-`` and 8). The readable part alone
    drops folders and punctuation, so two candidates could share it (``SMPyBandits.Policies:UCB``
    and ``SMPyBandits.Policies:UCBalpha`` keep theirs, ``a/impl.py:X`` and ``b/impl.py:X`` would
    not); with the digits, two candidates share a name only if their texts' hashes agree in 32
    bits. Add a suffix to the name by concatenation: ``Path.with_suffix`` reads what follows
    a ``.`` in it as a suffix."""
    text = " ".join(candidate) if isinstance(candidate, (list, tuple)) else str(candidate)
    words = [re.sub(r"\.(py|sh|R|jl|js|awk)$", "", word.rstrip("/").rsplit("/", 1)[-1])
             for word in re.split(r"[\s:]+", text) if word]
    name = re.sub(r"[^A-Za-z0-9_.=+]+", "-", "-".join(words)).strip("-.")
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{name[:60].rstrip('-.') or 'candidate'}-{digest}"

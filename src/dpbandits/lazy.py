"""Public names of a package imported on first use (PEP 562).

A package whose ``__init__`` imports every submodule makes ``import dpbandits.audit.external``
load SciPy too, which the command line pays at every start. Such a package
declares where each public name lives and gets its module ``__getattr__`` and ``__dir__`` here.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

__all__ = ["lazy_exports"]


def lazy_exports(package: str, where: dict[str, str],
                 namespace: dict[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: name -> submodule (relative) in ``where``;
    a name is imported on first use and then kept in ``namespace`` (the package's globals)."""

    def __getattr__(name: str) -> Any:
        if name in where:
            value = getattr(importlib.import_module(f"{package}.{where[name]}"), name)
            namespace[name] = value
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where))

    return __getattr__, __dir__

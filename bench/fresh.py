"""Fresh copies of the plain-Python programs, so that converting them never hits a cache.

Both engines cache conversions per code object (autograph_lite also per function). Code objects
compare equal by content, file name excluded, so a plain copy under a new name would still hit
malt's cache: each copy of ``bench/programs/natural.py`` is therefore shifted down by as many blank
lines as copies were made before it, which changes every ``co_firstlineno`` and nothing else. Written
to a new file and imported under a new module name, it has new code objects, a new file name and new
globals: every conversion of it is a first conversion, with the source read from disk through
``linecache`` as a user's first call would.
"""

from __future__ import annotations

import importlib.util
import itertools
import pathlib
import sys
import tempfile
import types

from .programs import natural


class FreshModules:
    """A temporary directory that hands out new imports of ``natural``; removed on exit."""

    def __init__(self) -> None:
        self._text = pathlib.Path(natural.__file__).read_text()
        self._counter = itertools.count()
        self._directory = tempfile.TemporaryDirectory(prefix="autograph_lite_bench_")
        self._names: list[str] = []

    def __enter__(self) -> FreshModules:
        return self

    def __exit__(self, *exc_info) -> None:
        for name in self._names:
            sys.modules.pop(name, None)
        self._directory.cleanup()

    def load(self) -> types.ModuleType:
        index = next(self._counter)
        name = f"bench_natural_copy_{index}"
        path = pathlib.Path(self._directory.name) / f"{name}.py"
        path.write_text("\n" * index + self._text)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # inspect finds a function's module (and so its source) here
        self._names.append(name)
        spec.loader.exec_module(module)
        return module

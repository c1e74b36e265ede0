"""autograph_lite: write Python ``if`` / ``for`` / ``while`` in JAX code and still ``jax.jit`` it.

A decorator reads the function's source, rewrites each control-flow statement into a call of a small
runtime operator, and hands the result to ``jax.jit``. At trace time a concrete condition keeps
Python's semantics; a traced one becomes ``lax.cond`` / ``lax.while_loop`` / ``lax.fori_loop`` /
``lax.scan``.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

from .api import convert, jit, to_source
from .callees import convert_modules, skip_modules
from .conversion import do_not_convert
from .errors import (
    ConversionError,
    SourceUnavailableError,
    StagingTypeError,
    TracedPredicateError,
    UnsupportedSyntaxError,
)
from .explain import Explanation, explain
from .logs import set_verbosity
from .runtime.iteration import stage, unroll

try:
    __version__ = _version("autograph-lite")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+unknown"

__all__ = [
    "ConversionError",
    "Explanation",
    "SourceUnavailableError",
    "StagingTypeError",
    "TracedPredicateError",
    "UnsupportedSyntaxError",
    "__version__",
    "convert",
    "convert_modules",
    "do_not_convert",
    "explain",
    "jit",
    "set_verbosity",
    "skip_modules",
    "stage",
    "to_source",
    "unroll",
]

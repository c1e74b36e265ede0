"""Exceptions that eager Python raises on values that are known only when the compiled program runs.

Python tests a condition and raises; a traced condition has no truth at trace time, so the test moves
to run time: a host callback receives the predicate and raises when it holds. This is the one place
that mechanism lives, so that every check (a zero ``range`` step, an index out of range, ...) behaves
the same way. Under ``jit`` the exception reaches the caller inside JAX's runtime error, whose message
carries Python's exception type, message and the user's line; under ``vmap`` the predicate arrives
batched and the exception is raised when any lane would raise.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import numpy as np


def raise_when(predicate: jax.Array, make_exception: Callable[[], BaseException]) -> None:
    """Raise ``make_exception()`` when the program runs, if ``predicate`` (any element of it) holds."""

    def check(holds: np.ndarray) -> None:
        if np.any(np.asarray(holds)):
            raise make_exception()

    jax.debug.callback(check, predicate)

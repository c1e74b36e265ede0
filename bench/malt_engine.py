"""The AutoGraph engine (diastatic-malt, the TensorFlow AutoGraph code without TensorFlow), as the
reference for conversion time.

``malt.to_graph`` parses, transforms, generates and loads the converted function right away (its
called functions are converted later, on call, as autograph_lite's are), so timing it is the same
work as timing ``autograph_lite.convert``. Only conversion is compared: malt's operators target
TensorFlow-style overloads, not ``jax.lax``.
"""

from __future__ import annotations

import importlib.util  # noqa: F401  malt 2.15.3 uses importlib.util without importing it
from collections.abc import Callable

import malt


def convert(function: Callable) -> Callable:
    """The function converted by AutoGraph (malt caches per code object: pass fresh functions)."""
    return malt.to_graph(function)

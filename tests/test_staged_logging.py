"""``logging`` calls in converted code log when the program runs (runtime/staged_logging.py): on every
call, with the values, in program order with ``print``, and only where eager Python logs. They ran once
while tracing with a tracer's name for the value (``val JitTracer(float32[])``), an f-string's text
made ``logging`` report an error on stderr instead, and one in a traced branch was refused."""

from __future__ import annotations

import logging

import jax.numpy as jnp
import pytest
from print_support import assert_prints_like_eager


class ToStdout(logging.Handler):
    def emit(self, record):
        print(self.format(record))


LOG = logging.getLogger("autograph_lite.tests.staged_logging")
LOG.handlers[:] = [ToStdout()]
LOG.setLevel(logging.INFO)
LOG.propagate = False


def logs_values(x):
    LOG.info("value %s", x)
    LOG.warning(f"twice {x * 2}")
    LOG.debug("below the level: never shown %s", x)
    print("after", x)
    return x


def logs_in_branches(x):
    if x > 0:
        LOG.info("positive %.2f", x)
    else:
        LOG.error("not positive")
    return x * 2


def test_a_logging_call_logs_on_every_call_in_order():
    assert_prints_like_eager(logs_values, jnp.float32(1.5), expected="value 1.5\ntwice 3.0\nafter 1.5\n")


@pytest.mark.parametrize("x, expected", [(1.5, "positive 1.50\n"), (-2.0, "not positive\n")])
def test_a_logging_call_in_a_traced_branch_logs_on_its_path(x, expected):
    assert_prints_like_eager(logs_in_branches, jnp.float32(x), expected=expected)

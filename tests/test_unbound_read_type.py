"""A read of a name no path has bound raises Python's own ``UnboundLocalError`` where no staged
statement traces it (runtime/values.py ``Undefined``): it was the converter's ``UnassignedReadError``
(a subclass with the same message, the signal by which a staged statement's trace learns of the
read), so ``type(error)`` was not eager's, and a ``try`` of the user's around the read let it through
(``not_for_handlers`` passes the converter's errors on), where eager's handler catches it. Found by
the generator: all features, seed 13, 850 programs: 3 such "exceptions"."""

from __future__ import annotations

import jax.numpy as jnp
import pytest

import autograph_lite


def else_never_runs(a):
    for _ in a:
        break
    else:
        v = 1.0
    return v  # unbound: the else never runs


def caught(a):
    for _ in a:
        break
    else:
        v = 1.0
    try:
        return v  # unbound: the else never runs
    except UnboundLocalError:
        return -1.0


@pytest.mark.parametrize("make", [autograph_lite.convert, autograph_lite.jit], ids=["convert", "jit"])
def test_the_read_raises_pythons_own_type(make):
    with pytest.raises(UnboundLocalError) as eager:
        else_never_runs(jnp.arange(3.0))
    with pytest.raises(UnboundLocalError) as converted:
        make(else_never_runs)(jnp.arange(3.0))
    assert type(converted.value) is type(eager.value) is UnboundLocalError
    assert str(converted.value) == str(eager.value)


@pytest.mark.parametrize("make", [autograph_lite.convert, autograph_lite.jit], ids=["convert", "jit"])
def test_a_handler_of_the_users_catches_it_as_eagers_does(make):
    assert caught(jnp.arange(3.0)) == -1.0
    assert float(make(caught)(jnp.arange(3.0))) == -1.0

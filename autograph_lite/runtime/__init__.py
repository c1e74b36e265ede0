"""The operators that converted code calls at trace time. This package never imports gast.

Converted code reaches all of them through one name, ``_ag``, bound in its closure to an
:class:`Operators` object; options chosen per conversion (such as ``static_loops``) live on that
object, so one compiled rewrite serves every set of options.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any

from jax.extend import source_info_util

from . import (
    appends,
    cleanups,
    conditionals,
    effects,
    items,
    logic,
    loops,
    matching,
    nested_items,
    printing,
    private_iterators,
    raises,
    run_time_checks,
    sequences,
    stacked_lists,
    switches,
    values,
)
from .calls import Calls


class Operators:
    """The ``_ag`` object seen by converted code."""

    Undefined = values.Undefined
    maybe_undefined = staticmethod(values.maybe_undefined)
    ld = staticmethod(raises.ld)
    if_stmt = staticmethod(conditionals.if_stmt)
    if_exp = staticmethod(conditionals.if_exp)
    switch_stmt = staticmethod(switches.switch_stmt)
    and_ = staticmethod(logic.and_)
    or_ = staticmethod(logic.or_)
    not_ = staticmethod(logic.not_)
    truth = staticmethod(logic.truth)
    compare = staticmethod(logic.compare)
    private_source = staticmethod(private_iterators.private_source)
    while_stmt = staticmethod(loops.while_stmt)
    setitem = staticmethod(items.setitem)
    setitem_nested = staticmethod(nested_items.setitem_nested)
    store_item = staticmethod(items.store_item)
    augment_item = staticmethod(items.augment_item)
    delete_item = staticmethod(items.delete_item)
    append = staticmethod(appends.append)
    stacked_list_call = staticmethod(stacked_lists.call)
    outer_write = staticmethod(effects.outer_write)
    check_item_assignment = staticmethod(effects.check_item_assignment)
    check_nested_item_assignment = staticmethod(effects.check_nested_item_assignment)
    check_in_place_operator = staticmethod(effects.check_in_place_operator)
    check_attribute_assignment = staticmethod(effects.check_attribute_assignment)
    fresh = staticmethod(appends.fresh)
    augmented = staticmethod(items.augmented)
    format_string = staticmethod(printing.format_string)
    format_message = staticmethod(printing.format_message)
    percent_format = staticmethod(printing.percent_format)
    raise_ = staticmethod(raises.raise_)
    assert_ = staticmethod(raises.assert_)
    not_for_handlers = staticmethod(raises.not_for_handlers)
    handling = staticmethod(run_time_checks.handling)
    cleanup_region = staticmethod(cleanups.cleanup_region)
    cleaning_up = staticmethod(cleanups.cleaning_up)
    match_pattern = staticmethod(matching.match_pattern)

    def __init__(self, static_loops: str, calls: Calls) -> None:
        if static_loops not in loops.STATIC_LOOP_MODES:
            raise ValueError(f"static_loops must be one of {loops.STATIC_LOOP_MODES}, not {static_loops!r}")
        self.static_loops = static_loops
        self.call = calls.call
        self.call_for_effect = calls.call_for_effect
        self.getattr = calls.load_attribute
        self.context = calls.context
        self.setattr = calls.store_attribute
        self.delattr = calls.delete_attribute
        self.getitem = sequences.make_getitem(calls.call)

    def for_stmt(
        self,
        iterable: Any,
        body: Callable[..., tuple[Any, ...]],
        init: tuple[Any, ...],
        names: tuple[str, ...],
        effect: str | None = None,
        stop_test: Callable[..., Any] | None = None,
        assigned_first: tuple[str, ...] = (),
    ) -> tuple[Any, ...]:
        return loops.for_stmt(iterable, body, init, names, self.static_loops, effect, stop_test, assigned_first)

    def warn(self, function: Any, *args: Any, **kwargs: Any) -> Any:
        """A call made for its effect that may be ``warnings.warn``: that one warns at run time in staged code."""
        if function is warnings.warn:
            return raises.warn(*args, **kwargs)
        return self.call(function, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<autograph_lite operators static_loops={self.static_loops!r}>"


def _hide_our_frames() -> None:
    """Point JAX's messages and filtered tracebacks at the user's lines, not at autograph_lite's.

    Source info ("created on line ...") uses the public jax.extend registry. Traceback filtering has
    no public registry; JAX's own modules use this one, and if it moves, tracebacks merely keep our
    frames.
    """
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    source_info_util.register_exclusion(package)
    try:
        from jax._src import traceback_util
    except ImportError:
        return
    traceback_util.register_exclusion(package)


_hide_our_frames()

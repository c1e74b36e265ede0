"""Names that generated code uses, shared by the passes (which never import jax) and the runtime
(which never imports gast)."""

# The one name through which converted code reaches the runtime operators.
RUNTIME = "_ag"
# Every generated helper and variable starts with this, so it never collides with the user's names.
PREFIX = "_ag_"
# The temporaries through which an unpacking reaches its targets (passes.plain_targets).
TARGET_TEMPORARY = PREFIX + "target_"
# The function's return value when a `return` sits inside a branch or a loop.
RETURN_VALUE = PREFIX + "retval"
# True once a `return` inside a branch or a loop has run.
RETURNED = PREFIX + "returned"

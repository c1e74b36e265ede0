"""Test-wide settings: a deterministic, bounded hypothesis profile for CI, a larger one on demand."""

import os

import jax
from hypothesis import HealthCheck, settings

# Equivalence is checked in float32 / int32, the dtypes users get by default; AUTOGRAPH_LITE_FUZZ_X64=1
# checks it with 64-bit types on, where jit makes a Python int / float an int64 / float64 (docs/semantics.md).
jax.config.update("jax_enable_x64", os.environ.get("AUTOGRAPH_LITE_FUZZ_X64") == "1")

settings.register_profile(
    "ci",
    max_examples=60,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.register_profile(
    "long",
    max_examples=int(os.environ.get("AUTOGRAPH_LITE_FUZZ_COUNT", "3000")),
    derandomize=False,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)
settings.load_profile(os.environ.get("AUTOGRAPH_LITE_HYPOTHESIS_PROFILE", "ci"))

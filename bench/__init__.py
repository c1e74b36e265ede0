"""Benchmark suite: autograph_lite against hand-written ``jax.lax`` and against AutoGraph (malt).

Run with ``python -m bench`` (``make bench``) or ``python -m bench --quick`` (``make bench-quick``);
see docs/performance.md for what each column measures.
"""

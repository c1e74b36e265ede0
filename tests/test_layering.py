"""The layers of DESIGN.md, enforced: the rewrite never imports jax, the runtime never imports gast.

``analysis/`` and ``passes/`` are pure AST work: importing JAX there would couple conversion speed and
correctness to the JAX version, and let a pass depend on values it cannot know. ``runtime/`` runs at
trace time on values: importing gast there would mean it inspects syntax, which is the passes' job.
Each module's imports, absolute and relative, are read from its source (nothing is imported), so an
indirect path through another layer (``from ..runtime import x`` in a pass) counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "autograph_lite"

# layer -> top-level modules it must never import, directly or through the package's other layers
FORBIDDEN = {
    "analysis": {"jax", "jaxlib", "numpy", "autograph_lite.runtime", "autograph_lite.passes",
                 "autograph_lite.conversion", "autograph_lite.api", "autograph_lite.codegen"},
    "passes": {"jax", "jaxlib", "numpy", "autograph_lite.runtime", "autograph_lite.conversion",
               "autograph_lite.api", "autograph_lite.codegen"},
    "runtime": {"gast", "autograph_lite.passes", "autograph_lite.analysis", "autograph_lite.codegen",
                "autograph_lite.source", "autograph_lite.conversion", "autograph_lite.api"},
}


def imported_modules(source: str, layer: str) -> set[str]:
    """The absolute names of the modules that ``source``, a module of ``layer``, imports."""
    package_parts = ["autograph_lite", layer]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package_parts[: len(package_parts) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def violations(source: str, layer: str) -> list[str]:
    return sorted(
        name for name in imported_modules(source, layer)
        if any(name == banned or name.startswith(banned + ".") for banned in FORBIDDEN[layer])
    )


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_nothing_it_must_not(layer):
    modules = sorted((PACKAGE / layer).glob("*.py"))
    assert modules, f"no modules found in {layer}/"
    found = {str(path.relative_to(PACKAGE)): violations(path.read_text(), layer) for path in modules}
    assert {module: names for module, names in found.items() if names} == {}


def test_the_import_reader_sees_relative_and_absolute_imports():
    # The check itself must be able to fail: a pass importing the runtime, relatively, is seen.
    source = "from ..runtime import values\nimport jax.numpy as jnp\nfrom . import templates\n"
    assert violations(source, "passes") == ["autograph_lite.runtime", "autograph_lite.runtime.values", "jax.numpy"]
    assert violations("from .values import is_traced\nimport gast\n", "runtime") == ["gast"]

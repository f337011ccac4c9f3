"""The layers import one way: no circle, nothing below imports from above.

From the top (each layer may import the layers under it, never one above):

  onnxfix (the package)   the public face: re-exports the Python API and the version; nothing in
                          onnxfix imports it (a module importing ``onnxfix`` for ``__version__``
                          closed a circle through api -> rewriter)
  cli, __main__           the command line
  api                     the Python API: check/fix, and export delegated to exporter/
  exporter/               everything that runs the user's code and imports torch
  rewriter/, patterns/,   the static checker: the engine, the rule catalog (and the export codes'
  output, decompositions/,  catalog), the report formats (output: the checker's text, JSON,
  operator_catalog,       SARIF), and the data both the rules and the exporter read (the
  opdb_catalog            decomposition helpers, the measured operator catalog, the op_db
                          probe's verdicts)
  config, _version        settings and the version: import no other onnxfix module

Within a layer, modules import each other freely but never in a circle. Every import counts,
at module level or inside a function (a lazy import still ties the layers); only an import
under ``if TYPE_CHECKING:`` is exempt (it never runs). bench/ scripts import a shared module
rather than each other, checked the same way. (Module size: test_registry.py holds every module
of onnxfix/ to 500 lines.)
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (layer, rank): a module may import a module of the same or a lower rank only.
LAYERS = (
    ("onnxfix._version", 0),
    ("onnxfix.config", 0),
    ("onnxfix.rewriter", 1),
    ("onnxfix.patterns", 1),
    ("onnxfix.output", 1),
    ("onnxfix.decompositions", 1),
    ("onnxfix.operator_catalog", 1),
    ("onnxfix.opdb_catalog", 1),
    ("onnxfix.exporter", 2),
    ("onnxfix.api", 3),
    ("onnxfix.cli", 4),
    ("onnxfix.__main__", 4),
)
PACKAGE_RANK = 5  # onnxfix/__init__.py


def module_names(folder: Path, prefix: str) -> dict[str, Path]:
    names = {}
    for path in folder.rglob("*.py"):
        parts = list(path.relative_to(folder).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join([prefix, *parts] if prefix else parts)] = path
    return names


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imported(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The known modules ``name`` imports, at any depth of its code but under TYPE_CHECKING.
    ``from pkg import sub`` imports the submodule ``pkg.sub`` when there is one, else ``pkg``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child.test):
                for other in child.orelse:
                    visit_one(other)
            else:
                visit_one(child)

    def visit_one(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                found.add(sub if sub in known else module)
        visit(node)

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    found.discard(name)
    return {m for m in found if m in known}


def graph(known: dict[str, Path]) -> dict[str, set[str]]:
    return {name: imported(name, path, known) for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One circle per strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges[node]):
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            connect(node)
    return components


def rank(module: str) -> int:
    if module == "onnxfix":
        return PACKAGE_RANK
    ranks = [r for layer, r in LAYERS if module == layer or module.startswith(layer + ".")]
    assert ranks, f"{module} sits in no layer: add it to LAYERS in {__file__}"
    return ranks[0]


def onnxfix_modules() -> dict[str, Path]:
    return module_names(ROOT / "onnxfix", "onnxfix")


def test_no_import_circle_in_onnxfix():
    assert cycles(graph(onnxfix_modules())) == []


def test_no_layer_imports_from_above():
    upward = sorted(
        f"{name} -> {other}"
        for name, others in graph(onnxfix_modules()).items()
        for other in others
        if rank(other) > rank(name)
    )
    assert upward == []


def test_no_import_circle_in_bench():
    scripts = {path.stem: path for path in (ROOT / "bench").glob("*.py")}
    assert cycles(graph(scripts)) == []


def test_the_graph_sees_lazy_and_relative_imports(tmp_path):
    """The checker itself: a function-level import counts, a TYPE_CHECKING one does not."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import c\n"
                                           "def f():\n    from . import b\n")
    (tmp_path / "pkg" / "b.py").write_text("import pkg.a\n")
    (tmp_path / "pkg" / "c.py").write_text("from .a import f\n")
    edges = graph(module_names(tmp_path / "pkg", "pkg"))
    assert edges["pkg.a"] == {"pkg.b"} and edges["pkg.c"] == {"pkg.a"}
    assert cycles(edges) == [["pkg.a", "pkg.b"]]

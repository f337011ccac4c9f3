"""Decompositions of operators the ONNX exporters cannot translate, each written ONCE.

Each decomposition is a small module in this package holding one function ``_onnx_<name>`` that
uses only torch. Two channels read the same text:

* the static source fix (ONX5xx, ``onnxfix/patterns/operators/``) reads the function's SOURCE
  (``helper_source``) and writes it into the user's file, so the fixed model needs no onnxfix;
* ``onnxfix export --decompose`` (``onnxfix/exporter/decompose.py``) executes the same text
  (``load_function``) and substitutes it for the torch call while the model is exported.

This module never imports torch: the static path reads only strings.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from importlib import resources

from onnxfix.decompositions import (
    registry_attention,
    registry_core,
    registry_divergence,
    registry_dtype,
    registry_fft,
    registry_legacy,
    registry_legacy_composite,
    registry_legacy_elementwise,
    registry_legacy_runtime,
    registry_legacy_structural,
    registry_linalg,
    registry_quantize,
    registry_random,
    registry_runtime,
    registry_spectral,
    registry_sparse,
    registry_special,
    registry_structural,
    registry_tensor_numbers,
)
from onnxfix.decompositions.base import PYTORCH, Decomposition

__all__ = ["DECOMPOSITIONS", "PYTORCH", "Decomposition"]

# One registry module per family, so that adding a decomposition touches its family's file (and
# its helper module) only.
REGISTRIES = (
    # first: its op-wrapping unbatched_pool takes every pooling, and in the "all" table (a later
    # record overwrites an earlier one's targets) the pools' own records must win
    registry_legacy_runtime,
    registry_core, registry_linalg, registry_spectral, registry_special, registry_structural, registry_quantize,
    registry_sparse,
    registry_legacy,
    registry_legacy_elementwise, registry_legacy_composite, registry_legacy_structural, registry_fft,
    registry_dtype, registry_divergence, registry_attention, registry_tensor_numbers, registry_runtime,
    registry_random,
)
DECOMPOSITIONS: tuple[Decomposition, ...] = tuple(d for r in REGISTRIES for d in r.DECOMPOSITIONS)
SUPPORT: tuple[str, ...] = tuple(key for r in REGISTRIES for key in getattr(r, "SUPPORT", ()))

BY_KEY = {d.key: d for d in DECOMPOSITIONS}


def by_target() -> dict[str, Decomposition]:
    """The decomposition of each torch callable a source rule matches (an op-wrapping export
    repair, which takes any of several ops, and an export-time-only one, which no source rule
    reports, name none: F.scaled_dot_product_attention is enable_gqa's, not the 3-D repair's)."""
    return {target: d for d in DECOMPOSITIONS if not d.wraps_op and d.static for target in d.targets}


def key_of_op(name: str) -> str:
    """The key of the decomposition of an ATen op named as the dynamo exporter names its ONNX nodes
    ("lshift": `Tensor.__lshift__`, "bitwise_left_shift") or as an exporter's error names it
    ("upsample_nearest_exact2d": F.interpolate's), or the name itself. A record whose helper takes
    the op it wraps (`Tensor.__rand__` of operands_promoted) names no ATen op ("rand")."""
    if name in BY_KEY:
        return name
    return next((d.key for d in DECOMPOSITIONS if not d.wraps_op and d.named_by_op for target in (*d.targets, *d.aten)
                 if target.rsplit(".", 1)[-1].strip("_") == name.strip("_")), name)


def rule_keys(code: str) -> tuple[str, ...]:
    """The keys of the decompositions rule ``code`` delivers, in registry order."""
    return tuple(d.key for d in DECOMPOSITIONS if d.rule == code)


@lru_cache(maxsize=None)
def module_source(key: str) -> str:
    return resources.files(__package__).joinpath(f"{key}.py").read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def helper_source(key: str) -> str:
    """The helper's definitions: the module minus its ``import torch`` (the function, and a class
    it needs, as complex_pair's)."""
    text = module_source(key)
    tree = ast.parse(text)
    definitions = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    lines = text.splitlines(keepends=True)
    return "".join(lines[definitions[0].lineno - 1 : definitions[-1].end_lineno])


@lru_cache(maxsize=None)
def called_helpers(key: str) -> tuple[str, ...]:
    """The other helpers ``key``'s text calls by name (a support helper such as complex_angle has
    no record to declare ``requires``: what it calls is what it needs)."""
    names = {node.id for node in ast.walk(ast.parse(helper_source(key))) if isinstance(node, ast.Name)}
    return tuple(sorted(name.removeprefix("_onnx_") for name in names
                        if name.startswith("_onnx_") and name != f"_onnx_{key}"
                        and resources.files(__package__).joinpath(f"{name.removeprefix('_onnx_')}.py").is_file()))


def helpers_called_by(sources: list[str]) -> list[tuple[str, str]]:
    """(name, text) of the helpers of this package that ``sources`` (helper texts a fix writes) call
    by name and do not define, and those these call in turn: a fix that writes one helper writes what
    it needs (conv_transpose_sized calls conv_transpose_padded)."""
    return list(_helpers_called_by(tuple(sources)))


@lru_cache(maxsize=256)  # every fix round of every file asks again about the same few helper texts
def _helpers_called_by(sources: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    defined = {name for text in sources for name in _defined_functions(text)}
    found: list[tuple[str, str]] = []
    pending = list(sources)
    while pending:
        text = pending.pop()
        for name in sorted(_names_in(text) - defined):
            key = name.removeprefix("_onnx_")
            if name.startswith("_onnx_") and resources.files(__package__).joinpath(f"{key}.py").is_file():
                defined.add(name)
                found.append((name, helper_source(key)))
                pending.append(found[-1][1])
    return tuple(found)


@lru_cache(maxsize=512)
def _defined_functions(text: str) -> frozenset[str]:
    return frozenset(node.name for node in ast.parse(text).body if isinstance(node, ast.FunctionDef))


@lru_cache(maxsize=512)
def _names_in(text: str) -> frozenset[str]:
    return frozenset(n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name))


_OPTIONAL = re.compile(r"""globals\(\)\.get\(["']_onnx_(\w+)["']""")


@lru_cache(maxsize=None)
def optional_helpers(key: str) -> tuple[str, ...]:
    """The helpers ``key``'s text uses where the file has them (`globals().get("_onnx_irfftn")`):
    a source fix leaves them out unless another fix brings them; an export loads them."""
    return tuple(sorted(set(_OPTIONAL.findall(helper_source(key))) - {key}))


def helper_chain(key: str) -> list[str]:
    """Keys whose helpers must be in the file for ``key``'s helper, dependencies first."""
    ordered: list[str] = []
    entered: set[str] = set()

    def visit(name: str) -> None:
        if name in entered:
            return  # helpers calling each other: each is written once
        entered.add(name)
        decomposition = BY_KEY.get(name)
        for dependency in (*(decomposition.requires if decomposition else ()), *called_helpers(name)):
            visit(dependency)
        if name not in ordered:
            ordered.append(name)

    visit(key)
    return ordered


@lru_cache(maxsize=None)
def signature(key: str) -> tuple[tuple[str, ...], frozenset[str], bool]:
    """(positional parameter names, every accepted keyword, takes *args) of the helper."""
    function = next(n for n in ast.parse(module_source(key)).body if isinstance(n, ast.FunctionDef))
    positional = tuple(a.arg for a in function.args.posonlyargs + function.args.args)
    keywords = frozenset(a.arg for a in function.args.args + function.args.kwonlyargs)
    return positional, keywords, function.args.vararg is not None


@lru_cache(maxsize=None)
def required_parameters(key: str) -> tuple[str, ...]:
    """The helper's positional parameters without a default (a call must bind each)."""
    function = next(n for n in ast.parse(module_source(key)).body if isinstance(n, ast.FunctionDef))
    positional = function.args.posonlyargs + function.args.args
    return tuple(a.arg for a in positional[: len(positional) - len(function.args.defaults)])


def helper_binding(key: str, node: ast.Call, method: bool, splat: bool = False) -> dict[str, ast.expr] | None:
    """The call's arguments by the parameter names of decomposition ``key``'s helper (a method's
    receiver first), or None where they do not bind: a keyword the helper lacks or one given twice,
    more positional arguments or any `*args` than a helper without *tensors takes, `**kwargs`
    unless ``splat`` (the run bound them), a required parameter left out. With *args or `**kwargs`
    the binding holds what the call spells by name: the positional arguments up to the first
    `*args`, and under the key "*" a tuple of the rest (the values a helper's *tensors takes, or
    ones whose parameters only the run knows), so that no argument is silently left out."""
    positional, keywords, varargs = signature(key)
    values = ([node.func.value] if method else []) + list(node.args)
    splatted = any(k.arg is None for k in node.keywords)
    if (splatted and not splat) or (not varargs and (len(values) > len(positional)
                                                     or any(isinstance(a, ast.Starred) for a in values))):
        return None
    named = min([len(positional)] + [i for i, value in enumerate(values) if isinstance(value, ast.Starred)])
    bound = dict(zip(positional, values[:named]))
    if values[named:]:
        bound["*"] = ast.Tuple(elts=values[named:], ctx=ast.Load())
        splatted = splatted or any(isinstance(value, ast.Starred) for value in values)
    for keyword in node.keywords:
        if keyword.arg is None:
            continue
        if keyword.arg not in keywords or keyword.arg in bound:
            return None
        bound[keyword.arg] = keyword.value
    missing = [p for p in required_parameters(key) if p not in bound]
    return None if missing and not splatted else bound  # a call missing a required argument is not this op's


EXPORT_GUARD = "not torch.onnx.is_in_onnx_export()"
# The legacy-only helpers (registry_legacy: ops the dynamo exporter translates itself): eager and
# dynamo's torch.export (torch.compiler.is_exporting() True) keep the op, only the legacy exporter
# runs the decomposition. A decomposition under dynamo can only lose: bitwise_right_shift's integer
# division became a float division there and lost the low bits of int32 values.
LEGACY_GUARD = "not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting()"
# The dynamo-only helpers: an op the dynamo exporter translates into another value for some inputs
# (sdpa_masked_rows: a fully masked attention row), which eager and the legacy exporter keep.
DYNAMO_GUARD = "not torch.compiler.is_exporting()"


@lru_cache(maxsize=None)
def _guard(key: str) -> str | None:
    function = next(n for n in ast.parse(module_source(key)).body if isinstance(n, ast.FunctionDef))
    first = function.body[0]
    if (isinstance(first, ast.If) and not first.orelse
            and len(first.body) == 1 and isinstance(first.body[0], ast.Return)):
        return ast.unparse(first.test)
    return None


def eager_guarded(key: str) -> bool:
    """The helper opens with ``if not torch.onnx.is_in_onnx_export(): return <the torch op>`` (or
    the legacy-only guard): outside export it returns the original op's result (bit-identical in
    eager, same errors), and only while exporting (both exporters set the flag) runs its
    decomposition."""
    return _guard(key) in (EXPORT_GUARD, LEGACY_GUARD, DYNAMO_GUARD)


def dynamo_guarded(key: str) -> bool:
    """The helper runs its decomposition under torch.export (the dynamo exporter) only."""
    return _guard(key) == DYNAMO_GUARD


def legacy_guarded(key: str) -> bool:
    """The helper runs its decomposition under the legacy exporter only."""
    return _guard(key) == LEGACY_GUARD


def executed_helpers(key: str) -> list[str]:
    """The helpers load_function executes for ``key``: its chain, and the chains of the helpers
    they may call (optional_helpers), dependencies first."""
    chain = helper_chain(key)
    for optional in (o for name in list(chain) for o in optional_helpers(name)):
        chain += [name for name in helper_chain(optional) if name not in chain]
    return chain


def load_function(key: str, namespace: dict | None = None):
    """Execute the helper text (and what it requires) and return the function. Imports torch."""
    import torch

    namespace = {"torch": torch} if namespace is None else namespace
    for name in executed_helpers(key):
        if f"_onnx_{name}" not in namespace:
            exec(compile(helper_source(name), f"<onnxfix decomposition {name}>", "exec"), namespace)  # noqa: S102 - our own package text
    return namespace[f"_onnx_{key}"]

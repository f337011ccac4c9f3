"""ONX523: `amax()` / `amin()` without `dim`, which the dynamo exporter cannot translate."""

from __future__ import annotations

import ast

from onnxfix import operator_catalog as catalog
from onnxfix.config import DYNAMO
from onnxfix.patterns.operators.base import PROBE, argument
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.edits import appended_keyword
from onnxfix.rewriter.precedence import ATOM, operand
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc

REDUCTIONS = ("amax", "amin")
# The catalog cases measuring each spelling without `dim` (onnxfix/exporter/catalog_cases.py).
CASES = {"torch.amax": "amax all", "Tensor.amax": "Tensor.amax all",
         "torch.amin": "amin all", "Tensor.amin": "Tensor.amin all"}


class ReduceAllDefaultDim(Rule):
    code = "ONX523"
    name = "reduce-all-default-dim"
    summary = "`amax()` / `amin()` without `dim` fail in dynamo: spell out every dimension"
    triggers = REDUCTIONS
    fix_availability = "sometimes"
    default_safety = "per-finding"
    exporters = (DYNAMO,)  # the legacy exporter translates every form (measured)
    # The catalog cases whose failures this rule fixes without a decomposition (README's count).
    fixed_catalog_cases = tuple(CASES.values())
    doc = RuleDoc(
        what="""
            Finds `x.amax()`, `x.amin()`, `torch.amax(x)` and `torch.amin(x)` reducing every
            dimension (no `dim`, or an empty `()` / `[]`) without `keepdim` (or with
            `keepdim=False`), where the measured catalog has that form failing for an exporter
            the project targets.
        """,
        why=f"""
            torch.export records the call as `aten.amax.default(x)`, leaving out `dim` because it
            equals its default (`[]`, every dimension; `dim=()` is left out the same way), and
            the dynamo exporter's translation (onnxscript's `aten_amax` / `aten_amin`) requires
            it: "ConversionError: Required parameter 'dim' is not provided. Signature:
            aten_amax(self, dim, keepdim)". `keepdim=True` makes torch.export write `dim` too,
            and that form exports (not reported). The legacy exporter translates every form. Which
            exporters fail is read from the measured catalog ({PROBE}); onnxscript fixed its
            side in microsoft/onnxscript#3035, and re-running the probe on a release with that
            fix silences the rule.
        """,
        example="def forward(self, x):\n    return x / x.amax()",
        use_instead="def forward(self, x):\n    return x / x.amax(dim=tuple(range(x.dim())))",
        fix_safety="""
            The fix passes the dimensions explicitly, `dim=tuple(range(x.dim()))`: ATen reads an
            empty `dim` as every dimension, so this is the same reduction, bit for bit (values,
            signed zeros and NaN, gradients; `max()` instead would pick another of +0/-0 and
            another NaN, and route gradients differently around NaN). Its text names the reduced
            tensor twice: safe when that is a plain read (names, attributes, subscripts) and, for
            the method form, known to be a tensor; when it is any other expression (a call,
            arithmetic) it is evaluated a second time, just for its number of dimensions: unsafe,
            as random draws or side effects would repeat.
        """,
        references=("https://github.com/microsoft/onnxscript/pull/3035",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        found = _reduced(node, ctx)
        if found is None:
            return
        name, reduced, method = found
        failed = catalog.failures((CASES[name],))
        if not failed:
            return  # the installed torch exports this form (per the catalog)
        message = (
            f"`{name}` without `dim` breaks ONNX export ({catalog.describe(failed)}; measured on torch "
            f"{catalog.torch_version()}); passing every dimension as `dim` is the same reduction and exports"
        )
        fix = _fix(node, reduced, method, ctx) if ctx.is_builtin("tuple") and ctx.is_builtin("range") else None
        yield ctx.report(self, node, message, fix=fix, exporters=tuple(sorted(failed)))


def _reduced(node: ast.Call, ctx: FunctionContext) -> tuple[str, ast.AST, bool] | None:
    """(the op's name, the reduced tensor, is a Tensor method) for an amax / amin call reducing
    every dimension with `keepdim` False. torch.export drops arguments equal to their defaults,
    so `dim=()` and `keepdim=False` record the same `aten.amax.default(x)` as the bare call
    (checked with torch 2.13), measured by the catalog's `amax all` cases."""
    func = node.func
    qualname = ctx.qualname(func)
    if qualname in ("torch.amax", "torch.amin"):
        name, method, reduced = qualname, False, argument(node, "input", 0)
    elif qualname is None and isinstance(func, ast.Attribute) and func.attr in REDUCTIONS:
        name, method, reduced = f"Tensor.{func.attr}", True, func.value
        if ctx.tensors.is_tensor(reduced) is False:
            return None
    else:
        return None
    most = 2 if method else 3  # (input,) dim, keepdim
    if reduced is None or len(node.args) > most or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    if any(k.arg not in ("input", "dim", "keepdim") for k in node.keywords):
        return None  # `out=`, `**kwargs`
    dim, keepdim = argument(node, "dim", 1, method), argument(node, "keepdim", 2, method)
    if not (dim is None or _empty_sequence(dim)):
        return None
    if not (keepdim is None or (isinstance(keepdim, ast.Constant) and keepdim.value is False)):
        return None  # a `keepdim` that may be True makes torch.export write `dim` (it exports)
    return name, reduced, method


def _empty_sequence(node: ast.AST) -> bool:
    return isinstance(node, (ast.Tuple, ast.List)) and not node.elts


def _fix(node: ast.Call, reduced: ast.AST, method: bool, ctx: FunctionContext) -> Fix:
    """`dim=tuple(range(<reduced>.dim()))`: in place of an empty `dim`, else after the call's last
    argument."""
    dims = f"tuple(range({operand(ctx.segment(reduced), reduced, ATOM)}.dim()))"
    given = argument(node, "dim", 1, method)
    if given is not None:
        edit = ctx.replace(given, dims)
    else:
        edit = appended_keyword(node, "dim=" + dims, ctx)
    return Fix("Pass every dimension as `dim`, the same reduction", (edit,), _safe(reduced, method, ctx))


def _safe(reduced: ast.AST, method: bool, ctx: FunctionContext) -> bool:
    if method and ctx.tensors.is_tensor(reduced) is not True:
        return False  # a method of something not known to be a tensor: it may have no `dim()`
    return _plain_read(reduced)  # anything else is evaluated a second time for its `dim()`


def _plain_read(node: ast.AST) -> bool:
    """Names, attributes and subscripts by constants or names: reading it again gives the same
    tensor and runs nothing."""
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Attribute):
        return _plain_read(node.value)
    if isinstance(node, ast.Subscript):
        return _plain_read(node.value) and _plain_index(node.slice)
    return False


def _plain_index(node: ast.AST) -> bool:
    if isinstance(node, ast.Tuple):
        return all(_plain_index(e) for e in node.elts)
    if isinstance(node, ast.Slice):
        return all(part is None or _plain_index(part) for part in (node.lower, node.upper, node.step))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _plain_index(node.operand)
    return isinstance(node, (ast.Constant, ast.Name))


RULES = [ReduceAllDefaultDim]

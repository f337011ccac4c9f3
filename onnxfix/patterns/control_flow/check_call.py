"""ONX601: a check function called on a tensor test, its result unused.

kornia validates arguments with `KORNIA_CHECK(any(factor >= 0), "Contrast factor must be
positive.")`, a function whose body only tests its argument and raises. The test is on tensor
values (Python's `any()` iterates the tensor, each row's truth a data-dependent guard), so
torch.export fails inside the check as it fails on `if bad: raise` written in place; the legacy
trace drops it. The call statement becomes `torch.compiler.is_exporting() or CHECK(...)`: eager
(and the legacy tracer, and torch.compile) calls the check as before, torch.export skips it.
"""

from __future__ import annotations

import ast

from onnxfix.patterns.control_flow.conditions import tensor_condition
from onnxfix.patterns.messages import test_skippable_when_exporting
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.export_guards import consults_export_guard
from onnxfix.rewriter.rule import Edit, Fix
from onnxfix.rewriter.tree_walk import walk

# calls a check's own tests may make (none has an effect)
CHECK_TEST_CALLS = frozenset({"isinstance", "torch.jit.is_scripting", "torch.jit.is_tracing", "len", "callable"})


def skip_check_call(statement: ast.Expr, ctx: FunctionContext) -> Fix | None:
    """The fix for `CHECK(<tensor test>, ...)` as a statement, CHECK a check function; else None."""
    call = statement.value
    if not isinstance(call, ast.Call) or consults_export_guard(call) or ctx.compiled_by_torchscript:
        return None
    arguments = [*call.args, *(k.value for k in call.keywords)]
    if not any(tensor_condition(a, ctx) is not None for a in arguments) or _check_function(call, ctx) is None:
        return None
    torch, imports = ctx.torch_name()
    start = ctx.file.source.span(call)[0]
    guard = Edit(start, start, f"{torch}.compiler.is_exporting() or ")
    return Fix("Skip the check while exporting (`torch.compiler.is_exporting() or ...`)",
               (guard,), safe=test_skippable_when_exporting(call), imports=imports)


def _check_function(call: ast.Call, ctx: FunctionContext) -> ast.FunctionDef | None:
    """The module's function (or the class's method) the call names, when its body only tests its
    arguments and returns or raises: no assignment, loop or call but the tests' own."""
    func, node = call.func, None
    if isinstance(func, ast.Name) and not (ctx.is_parameter(func.id) or ctx.assignments(func.id)):
        node = ctx.file.module.functions.get(func.id)
    elif ctx.is_self_attr(func) and ctx.fn.cls is not None:
        node = ctx.fn.cls.methods.get(func.attr)
    if not isinstance(node, ast.FunctionDef) or node.decorator_list:
        return None
    raises = False
    for sub in walk(node):
        if isinstance(sub, ast.Raise):
            raises = True
        elif isinstance(sub, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.While, ast.With, ast.Try,
                              ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await, ast.Delete)):
            return None
        elif isinstance(sub, ast.Call) and not _inside_raise(sub, node) and (
                ctx.qualname(sub.func) or getattr(sub.func, "id", None)) not in CHECK_TEST_CALLS:
            return None
    return node if raises else None


def _inside_raise(node: ast.AST, function: ast.FunctionDef) -> bool:
    """In a `raise` statement (building the error and its message)."""
    return any(isinstance(r, ast.Raise) and any(n is node for n in walk(r)) for r in walk(function))

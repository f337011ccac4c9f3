"""ONX602's fix: a `while` on a tensor value run as `torch._higher_order_ops.while_loop` while torch.export traces.

    while torch.sum(x) < 10:          if torch.compiler.is_exporting():
        x = x + 1                         def _onnx_while_cond(x, n):
        n = n + 1                             return torch.sum(x) < 10
                                          def _onnx_while_body(x, n):
                                              x = x + 1
                                              n = n + 1
                                              return (x, n)
                                          x, n = torch._higher_order_ops.while_loop(_onnx_while_cond, _onnx_while_body, (x, n))
                                      else:
                                          while torch.sum(x) < 10:
                                              ...

torch.export captures `while_loop` as one higher-order op and torch.onnx writes it as an ONNX Loop
(torch/onnx/_internal/exporter/_torchlib/ops/hop.py), the trip count decided by the values when
the model runs. Eager PyTorch and the legacy tracer keep the Python loop, word for word.
"""

from __future__ import annotations

import ast

from onnxfix.config import DYNAMO
from onnxfix.patterns.control_flow.nested_branches import line_end, movable, only_computes, spans_multiline_string
from onnxfix.patterns.control_flow.value_cond import value_predicate
from onnxfix.patterns.messages import test_skippable_when_exporting
from onnxfix.rewriter.binding_flow import certainly_bound, free_reads
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Edit, Fix
from onnxfix.rewriter.statements import statement_indent
from onnxfix.rewriter.tree_walk import walk

COND, BODY = "_onnx_while_cond", "_onnx_while_body"


def while_loop_fix(node: ast.While, ctx: FunctionContext) -> Fix | None:
    """The fix for a `while` whose test is a tensor's value and whose body only computes values
    bound to plain names (each one it carries bound before the loop and not known to be other than a tensor)."""
    if node.orelse or ctx.compiled_by_torchscript or _inside_loop(node, ctx) or not movable([node], ctx):
        return None
    if DYNAMO in ctx.exporters_skipping(node):  # the eager side of a fix already made
        return None
    if not all(only_computes(s, node.body) and _plain_assignment(s) for s in node.body):
        return None
    if spans_multiline_string(node.body, ctx) or any(isinstance(n, ast.Name) and n.id in (COND, BODY)
                                                     for n in walk(ctx.fn.node)):
        return None
    predicate = value_predicate(node.test, ctx)
    if predicate is None or any(isinstance(n, ast.NamedExpr) for n in walk(node.test)):
        return None
    carried = _carried(node, ctx)
    # a carried Python number would fail the export (while_loop carries tensors), as the loop did
    if not carried or not all(certainly_bound(n, node, ctx) and ctx.tensors.is_tensor(ast.Name(id=n, ctx=ast.Load()))
                              is not False for n in carried):
        return None
    return _rewrite(node, carried, predicate.text, ctx)


def _plain_assignment(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Assign) and all(
        isinstance(t, ast.Name) or (isinstance(t, ast.Tuple) and all(isinstance(e, ast.Name) for e in t.elts))
        for t in statement.targets)


def _carried(node: ast.While, ctx: FunctionContext) -> list[str]:
    """The names the body binds that the test, a later step or the code after the loop reads, in
    order of first binding."""
    bound = [n.id for s in node.body for n in walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    read_in_test = {n.id for n in walk(node.test) if isinstance(n, ast.Name)}
    read_first = free_reads(node.body)
    end = (node.end_lineno, node.end_col_offset)
    read_after = {n.id for n in walk(ctx.fn.node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                  and (n.lineno, n.col_offset) > end}
    return list(dict.fromkeys(n for n in bound if n in read_in_test | read_first | read_after))


def _inside_loop(node: ast.AST, ctx: FunctionContext) -> bool:
    return any(isinstance(a, (ast.For, ast.AsyncFor, ast.While, ast.Lambda, ast.FunctionDef))
               for a in _between(node, ctx))


def _between(node: ast.AST, ctx: FunctionContext):
    for ancestor in ctx.ancestors(node):
        if ancestor is ctx.fn.node:
            return
        yield ancestor


def _rewrite(node: ast.While, carried: list[str], test: str, ctx: FunctionContext) -> Fix | None:
    source = ctx.file.source
    indent, inner = statement_indent(ctx, node), statement_indent(ctx, node.body[0])
    if len(inner) <= len(indent) or not inner.startswith(indent) or node.body[0].lineno == node.lineno:
        return None
    step = inner[len(indent):]
    names = ", ".join(carried)
    packed = f"({names},)" if len(carried) == 1 else f"({names})"
    torch, imports = ctx.torch_name()
    loop_lines = [source.line_text(n) for n in range(node.lineno, node.end_lineno + 1)]
    body_lines = [source.line_text(n) for n in range(node.body[0].lineno, node.end_lineno + 1)]
    moved_loop = "\n".join(f"{step}{line}" if line.strip() else "" for line in loop_lines)
    moved_body = "\n".join(f"{step}{line}" if line.strip() else "" for line in body_lines)
    text = (f"if {torch}.compiler.is_exporting():  # torch.export: the loop as one while_loop (an ONNX Loop)\n"
            f"{indent}{step}def {COND}({names}):\n{indent}{step}{step}return {test}\n"
            f"{indent}{step}def {BODY}({names}):\n{moved_body}\n{indent}{step}{step}return {packed}\n"
            f"{indent}{step}{names}{',' if len(carried) == 1 else ''} = {torch}._higher_order_ops.while_loop("
            f"{COND}, {BODY}, {packed})\n"
            f"{indent}else:\n{moved_loop}")
    start = source.offset(node.lineno, node.col_offset)
    return Fix("Run the loop as torch's while_loop while torch.export traces", (Edit(start, line_end(node, ctx), text),),
               safe=test_skippable_when_exporting(node.test), imports=imports)

"""ONX535: `torch.full(size, <int>)` with no dtype, its size from the graph: the legacy exporter fills floats.

Chronos-2 appends a [REG] token with `torch.full((batch_size, 1), self.config.reg_token_id)` and embeds
it. Eager infers int64 from the int fill; the legacy exporter writes a ConstantOfShape whose value is a
float (its `full` symbolic types a fill it reads from the trace as float), so the Embedding's Gather gets
float indices and onnxruntime refuses the graph (INVALID_GRAPH, "Type 'tensor(float)'"). A size of
literal ints is folded into a constant of the right type.
"""

from __future__ import annotations

import ast

from onnxfix.config import LEGACY
from onnxfix.patterns.scalars.values import assigned_name
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Edit, Fix, Rule, RuleDoc
from onnxfix.rewriter.statements import block_of, enclosing_statement, reads_of_single_binding
from onnxfix.rewriter.tree_walk import walk


class IntFillWithoutDtype(Rule):
    code = "ONX535"
    name = "int-fill-without-dtype"
    summary = "`torch.full(size, <int>)` with no dtype and a size from the graph: the legacy exporter fills it with floats"
    fix_availability = "always"
    default_safety = "safe"
    exporters = (LEGACY,)  # torch.export keeps the inferred int64
    doc = RuleDoc(
        what="Finds `torch.full(size, fill)` with no `dtype=`, `fill` an int (a literal, an int of the "
        "model's configuration, a size or integer arithmetic of those, a module constant; or any fill "
        "where the tensor is an embedding's indices wherever it is made, `nn.Embedding`'s or "
        "`F.embedding`'s, which eager refuses as floats: directly, or a name assigned it once and "
        "embedded by a later statement of the same block with no exit between) and the size not "
        "made of int literals only.",
        why="Eager infers int64 from an int fill. The legacy exporter writes a ConstantOfShape (the size "
        "is a graph value) holding a float: the tensor of token ids is float in the ONNX graph, and an "
        "Embedding's Gather of it makes the model invalid (onnxruntime: INVALID_GRAPH, \"Type "
        "'tensor(float)' of input parameter\"; Chronos-2's [REG] token, measured on torch 2.13). The "
        "dynamo exporter exports it as int64.",
        example="def forward(self, x):\n    ids = torch.full((x.shape[0], 1), 4)\n    return self.embed(ids)",
        use_instead="def forward(self, x):\n    ids = torch.full((x.shape[0], 1), 4, dtype=torch.int64)\n"
        "    return self.embed(ids)",
        fix_safety="Safe: `dtype=torch.int64` is the dtype eager infers from an int fill (torch.full's "
        "documented inference), so the same tensor; a fill known only through its use as embedding "
        "indices is an int wherever eager runs (float or bool indices raise).",
        references=("https://github.com/ailia-ai/ailia-models/blob/d3c874df88562cf20f8af4052be5e287fceb1d7b/"
                    "time_series_forecasting/chronos2/export/export_chronos2.py",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        if ctx.qualname(node.func) != "torch.full" or not _plain_arguments(node):
            return
        size = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "size"), None)
        fill = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "fill_value"), None)
        if size is None or fill is None or any(k.arg == "dtype" for k in node.keywords):
            return
        if _literal_size(size) or not (ctx.ints.is_int(fill) or _indices_only(node, ctx)):
            return
        torch_name, imports = ctx.torch_name()
        last = max([*node.args, *(k.value for k in node.keywords)], key=lambda a: (a.end_lineno, a.end_col_offset))
        end = ctx.file.source.span(last)[1]  # after the last argument: a trailing comma stays after it
        fix = Fix("Give the dtype eager infers (int64)", (Edit(end, end, f", dtype={torch_name}.int64"),),
                  safe=True, imports=imports)
        yield ctx.report(self, node, f"`torch.full` with an int fill (`{ctx.segment(fill)}`) and no dtype, its size from "
                         "the graph: the legacy exporter fills it with floats (eager: int64); give `dtype=torch.int64`",
                         fix=fix)


def _indices_only(node: ast.Call, ctx: FunctionContext) -> bool:
    """The filled tensor is an embedding's indices wherever it is made (`self.shared(torch.full(...))`,
    or a name assigned it once and embedded by a later statement of the same block, with no exit
    between: Chronos-2's `reg_input_ids`): eager raises for float or bool indices, so wherever the
    model computes anything the fill was an int (Chronos-2's `self.config.reg_token_id`, a config
    object the rules cannot read)."""
    name = assigned_name(node, ctx)
    if name is None:
        return _embedding_indices(node, ctx)
    if reads_of_single_binding(name, ctx) is None:
        return False
    assignment = enclosing_statement(node, ctx)
    block = block_of(assignment, ctx)
    if not block:
        return False
    later = block[block.index(assignment) + 1:]
    for statement in later:
        if any(_embedding_indices(n, ctx) for n in walk(statement) if isinstance(n, ast.Name) and n.id == name):
            return True
        if any(isinstance(n, (ast.Return, ast.Raise, ast.Break, ast.Continue)) for n in walk(statement)):
            return False
    return False


def _embedding_indices(node: ast.AST, ctx: FunctionContext) -> bool:
    call = ctx.parent(node)
    if not (isinstance(call, ast.Call) and call.args and call.args[0] is node):
        return False
    if ctx.qualname(call.func) == "torch.nn.functional.embedding":
        return True
    constructor = ctx.self_attr_value(call.func) if ctx.is_self_attr(call.func) else None
    return isinstance(constructor, ast.Call) and ctx.file.module.scope.qualname(constructor.func) == "torch.nn.Embedding"


def _plain_arguments(node: ast.Call) -> bool:
    return not any(isinstance(a, ast.Starred) for a in node.args) and all(k.arg is not None for k in node.keywords)


def _literal_size(size: ast.AST) -> bool:
    """A size of int literals only (`(3, 1)`, `[4]`, `5`): the legacy exporter folds the constant, typed right."""
    items = size.elts if isinstance(size, (ast.Tuple, ast.List)) else [size]
    return all(isinstance(i, ast.Constant) and type(i.value) is int for i in items)


RULES = [IntFillWithoutDtype]

"""ONX409: `is_causal=` of scaled_dot_product_attention computed from a size comparison.

transformers' attention (`is_causal = causal_mask is None and query.shape[2] > 1`) hands the
comparison of a size to `F.scaled_dot_product_attention`. In eager and under torch.export the
size is an int (a SymInt), the comparison a bool. The legacy exporter traces sizes as tensors, so
the comparison is a 0-d Tensor and the op refuses it: "scaled_dot_product_attention(): argument
'is_causal' must be bool, not Tensor" (huggingface/transformers#35791's GPT-2, measured on torch
2.13). `bool(...)` at the call turns it back into the Python bool the op takes.
"""

from __future__ import annotations

import ast

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc
from onnxfix.rewriter.tree_walk import walk

SDPA = "torch.nn.functional.scaled_dot_product_attention"
IS_CAUSAL_POSITION = 5  # (query, key, value, attn_mask, dropout_p, is_causal, ...)


class SizeComparedFlag(Rule):
    code = "ONX409"
    name = "size-compared-flag"
    summary = "`is_causal=` of scaled_dot_product_attention from a size comparison: a Tensor in the legacy trace"
    fix_availability = "always"
    default_safety = "safe"
    exporters = ("legacy",)  # dynamo's sizes are SymInts, their comparison a SymBool the op takes
    triggers = ("scaled_dot_product_attention",)
    doc = RuleDoc(
        what="Finds `F.scaled_dot_product_attention(..., is_causal=flag)` in export-time code where "
        "`flag` is, or is a name the function binds to, an expression comparing a tensor size "
        "(`query.shape[2] > 1`, `q_len > 1 and mask is None`).",
        why="The legacy exporter traces sizes as 0-d tensors, so the comparison is a Tensor, and "
        "the op takes only a Python bool: the export fails with \"argument 'is_causal' must be bool, "
        "not Tensor\" (measured on torch 2.13 with transformers' GPT-2 decoder step). The dynamo "
        "exporter compares SymInts and is not affected.",
        example="def forward(self, q, k, v):\n    is_causal = q.shape[2] > 1\n"
        "    return F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)",
        use_instead="def forward(self, q, k, v):\n    is_causal = q.shape[2] > 1\n"
        "    return F.scaled_dot_product_attention(q, k, v, is_causal=bool(is_causal))",
        fix_safety="Safe: the op takes only a Python bool, so wherever eager runs, the flag already is "
        "one and `bool()` returns it unchanged (under torch.export, a SymBool the op would guard on "
        "anyway). The legacy trace then keeps the answer of the export-time sizes, as it keeps every "
        "size turned into a Python value (a TracerWarning): with a dynamic sequence length, check the "
        "export on other lengths (`onnxfix export` does).",
        references=("https://github.com/huggingface/transformers/pull/35791",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        if ctx.qualname(node.func) != SDPA:
            return
        flag = next((k.value for k in node.keywords if k.arg == "is_causal"), None)
        if flag is None and len(node.args) > IS_CAUSAL_POSITION:
            flag = node.args[IS_CAUSAL_POSITION]
        if flag is None or isinstance(flag, ast.Constant) or _is_bool_call(flag, ctx):
            return
        if not any(_compares_size(value, ctx) for value in _values(flag, ctx)):
            return
        fix = Fix("Pass the flag as a Python bool (`bool(...)`)", (ctx.replace(flag, f"bool({ctx.segment(flag)})"),),
                  safe=True)
        yield ctx.report(self, flag, f"`is_causal={ctx.segment(flag)}` compares a tensor size: the legacy exporter "
                         "traces sizes as tensors, so the flag is a Tensor and scaled_dot_product_attention refuses it "
                         "(\"must be bool, not Tensor\"); pass `bool(...)`", fix=fix)


def _is_bool_call(node: ast.expr, ctx: FunctionContext) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "bool" and ctx.is_builtin("bool")


def _values(flag: ast.expr, ctx: FunctionContext) -> list[ast.AST]:
    """The flag itself, and for a name every value the function binds it to."""
    if isinstance(flag, ast.Name):
        return [flag, *ctx.assignments(flag.id)]
    return [flag]


def _compares_size(value: ast.AST, ctx: FunctionContext) -> bool:
    """A comparison in ``value`` one of whose operands is a tensor size (`q.shape[2] > 1`)."""
    return any(isinstance(node, ast.Compare) and any(ctx.sizes.is_size(o) for o in (node.left, *node.comparators))
               for node in walk(value))


RULES = [SizeComparedFlag]

"""An embedding with max_norm whose weight is read elsewhere: eager renormalises the looked-up rows
in place, and a read of the weight after the lookup (a tied output projection, `vectors @
self.weight.t()`) sees the renormalised rows. `_onnx_embedding` scales the looked-up rows without
writing the weight, so it is faithful only where the lookup is the weight's one reader."""

from __future__ import annotations

import ast
import re

from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.tree_walk import walk

TIED_MESSAGE = (
    "no fix: eager renormalises the weight rows in place and this code reads the weight elsewhere "
    "(a tied projection sees the renormalised rows), which an exportable rewrite cannot repeat. "
    "Renormalise the weight once before export and drop max_norm")


def weight_read_elsewhere(node: ast.Call, ctx: FunctionContext) -> bool:
    """`F.embedding(t, W, max_norm=...)` with `W` read elsewhere in the class (or function), or
    `self.emb(t)` (an nn.Embedding) whose `.emb.weight` a class of the file names (a tie in an
    `__init__`, a projection in a forward; not a factory scaling the weight before export)."""
    if ctx.qualname(node.func) == "torch.nn.functional.embedding":
        weight = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "weight"), None)
        if weight is None:
            return True  # not known: keep the report
        scope = ctx.fn.cls.node if ctx.fn.cls is not None else ctx.fn.node
        reads = rf"(?<![\w.]){re.escape(ctx.segment(weight))}(?!\w)(?!\s*=[^=])"  # not its binding
        return len(re.findall(reads, _text_of(scope, ctx))) > 1
    if ctx.is_self_attr(node.func):  # the rule matched it as an nn.Embedding's call
        named = rf"\.{re.escape(node.func.attr)}\.weight\b"
        return any(re.search(named, _text_of(cls, ctx)) for cls in walk(ctx.file.module.tree)
                   if isinstance(cls, ast.ClassDef))
    return False


def _text_of(node: ast.AST, ctx: FunctionContext) -> str:
    start, end = ctx.file.source.span(node)
    return ctx.file.source.text[start:end]

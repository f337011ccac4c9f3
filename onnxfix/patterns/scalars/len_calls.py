"""ONX204: `len()` of a tensor, which the exporters read as a Python int."""

from __future__ import annotations

import ast
from pathlib import Path

from onnxfix.config import DYNAMO, LEGACY
from onnxfix.rewriter.context import FunctionContext, builtin_call
from onnxfix.rewriter.datadep import is_data_sized
from onnxfix.rewriter.precedence import ATOM, operand
from onnxfix.rewriter.rule import Fix, Rule, RuleDoc
from onnxfix.rewriter.tree_walk import walk


class LenOfTensor(Rule):
    code = "ONX204"
    name = "len-of-tensor"
    summary = "`len(tensor)` instead of `tensor.shape[0]`"
    fix_availability = "always"
    default_safety = "safe"
    exporters = (LEGACY, DYNAMO)
    doc = RuleDoc(
        what="""
            Finds `len(t)` where `t` is known to be a tensor (a torch call, a tensor method, a
            parameter annotated `Tensor`, a module's weight, a name inside `if isinstance(t,
            torch.Tensor):`, ...). Seen in UDOP (`range(len(patch_inds))`), LLaVA-OneVision
            (`len(image_sizes)`), SuperPoint, kornia's `solarize` (`input.size(0) == len(additions)`).
            Under `onnxfix export`, also `len(obj)` where the run saw `obj` hold only instances
            of one class of this file that defines `__len__` (detectron2's `Instances` and
            `Boxes`, whose `__len__` returns `tensor.shape[0]`: Detic's `[len(p) for p in
            proposals]` split sizes).
        """,
        why="""
            The legacy exporter records `len(t)` as a constant (TracerWarning "Using len to get
            tensor shape might cause the trace to be incorrect"): with a dynamic first
            dimension, `x * len(x)` and `x[: len(x) - 1]` are silently wrong for every other
            size (measured on torch 2.13, tests/test_values_exporters.py). `t.shape[0]` stays
            symbolic. torch.export's non-strict mode (the dynamo exporter's first try) makes
            the length a Python int too: a dynamic first dimension specializes to the example's
            ("Constraints violated ... specialized it to be a constant", measured on torch 2.13);
            torch.onnx then retries in strict mode, which follows `len()`, so a model exports
            only where everything else in it also passes strict mode (kornia's `solarize`,
            tests/realworld/kornia_solarize_per_sample_additions_stack_iter.py, did not).
            Hugging Face optimum patches `Tensor.__len__` to `x.shape[0]` for this reason.
        """,
        example="""
            def forward(self, x: torch.Tensor):
                return x[: len(x) - 1] * len(x)
        """,
        use_instead="""
            def forward(self, x: torch.Tensor):
                return x[: x.shape[0] - 1] * x.shape[0]
        """,
        fix_safety="""
            Safe: for a tensor, `len(t)` is defined as `t.shape[0]` (both raise for a 0-d
            tensor). The rule only reports values known to be tensors; `len()` of a list, tuple
            or of something the analysis cannot type is left alone, except under `onnxfix export`
            where the legacy trace warned "Using len to get tensor shape" at the line and the
            line holds no other `len()` (NequIP's `len(data["num_atoms"])`, a dict's entry): the
            run saw a tensor there. `len(obj)` of such a class becomes `obj.__len__()`: safe, the
            method `len()` calls, whose int it returns as it is (they differ only where `len()`
            raises: a negative or non-int result); a size it returns stays a graph value.
        """,
        references=(
            "https://github.com/huggingface/optimum-onnx/blob/1939f27a1d04bd9fdf4c3b17eaa70a99dcd380c6/optimum/exporters/onnx/model_patcher.py",
            "https://github.com/huggingface/transformers/pull/31311",
        ),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        if builtin_call(node, ctx, frozenset({"len"})) is None or len(node.args) != 1:
            return
        argument = node.args[0]
        sized = _sized_object(argument, ctx)
        if sized is not None:
            text = operand(ctx.segment(argument), argument, ATOM) + ".__len__()"
            fix = Fix("Call `__len__()` itself", (ctx.replace(node, text),), safe=True)
            yield ctx.report(self, node, f"`len()` of a `{sized}`, whose `__len__` the run saw: `len()` turns the size "
                             "it returns into a Python int, a constant in the legacy export (and a specialized size "
                             "for torch.export); `.__len__()` returns the size itself", fix=fix)
            return
        if not ctx.tensors.is_tensor(argument) and not _warned_by_the_trace(node, ctx):
            return
        text = operand(ctx.segment(argument), argument, ATOM) + ".shape[0]"
        fix = Fix("Use `.shape[0]`", (ctx.replace(node, text),), safe=True)
        if is_data_sized(argument, ctx):  # `len(t.nonzero())`: torch.export fails on the count either way
            yield ctx.report(self, node, "`len()` of a tensor: the legacy exporter records the length as a "
                             "constant; use `.shape[0]`", fix=fix, exporters=(LEGACY,))
            return
        yield ctx.report(
            self, node,
            "`len()` of a tensor: the legacy exporter records the length as a constant and torch.export's "
            "non-strict mode specializes the dimension; use `.shape[0]`",
            fix=fix,
        )


def _sized_object(argument: ast.expr, ctx: FunctionContext) -> str | None:
    """The class of ``argument`` when the run saw it hold only instances of one class of this file
    that defines `__len__` (detectron2's `Instances`, whose `__len__` returns a field's
    `tensor.shape[0]`): its name, else None."""
    observed = ctx.observed(argument) if isinstance(argument, ast.Name) else None
    types = {v.type for v in observed or ()}
    if not observed or len(types) != 1 or any(v.kind != "other" for v in observed):
        return None
    module, _, name = types.pop().rpartition(".")
    if module.rsplit(".", 1)[-1] != Path(ctx.file.source.path).stem:
        return None  # a class of another module, maybe of the same name
    info = ctx.file.module.classes.get(name)
    if info is None or "__len__" not in info.methods:
        return None
    return name


def _warned_by_the_trace(node: ast.Call, ctx: FunctionContext) -> bool:
    """The only `len()` on a line where `onnxfix export`'s legacy trace warned "Using len to get tensor
    shape": its argument was a tensor there (a dict's entry, NequIP's `len(data["num_atoms"])`)."""
    evidence = ctx.file.evidence
    if evidence is None or node.lineno not in evidence.tensor_len:
        return False
    statement = next(a for a in ctx.ancestors(node) if isinstance(a, ast.stmt))
    calls = [n for n in walk(statement) if builtin_call(n, ctx, frozenset({"len"})) is not None]
    return calls == [node] and node.lineno == node.end_lineno

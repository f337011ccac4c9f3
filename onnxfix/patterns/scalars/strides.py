"""ONX208: a tensor's strides read in export-time code (`x.stride()`, `x.stride(2)`).

Conformers' relative shift (icefall, WeNet, ChunkFormer) and Longformer's overlapping chunks read
the strides to call `as_strided`:

    batch_stride, head_stride, time1_stride, n_stride = x.stride()
    return x.as_strided((b, h, t, t), (batch_stride, head_stride, time1_stride - n_stride, n_stride),
                        storage_offset=n_stride * (t - 1))

The legacy exporter's tracer records strides as Python ints of the export-time sizes (it traces the
sizes, not the strides): the model is wrong at other sizes. The dynamo exporter records
`aten.sym_stride`, which torch.onnx cannot translate ("No ONNX function found for
aten.sym_stride.int"). `_onnx_strides(x)` is `x.stride()` in eager; while either exporter traces, a
contiguous tensor's strides from its sizes.
"""

from __future__ import annotations

import ast

from onnxfix.decompositions import helper_source
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix, Helper, Rule, RuleDoc

STRIDES = Helper("_onnx_strides", helper_source("strides"))


class TensorStrides(Rule):
    code = "ONX208"
    name = "tensor-strides"
    summary = "A tensor's strides read in export-time code: constants under legacy, untranslatable under dynamo"
    fix_availability = "always"
    default_safety = "safe"
    doc = RuleDoc(
        what="Finds `x.stride()` and `x.stride(d)` of a tensor in code that runs under export.",
        why="Measured on torch 2.13 (a conformer's relative shift through `as_strided`): the legacy exporter "
        "records the strides as the export-time numbers (it traces sizes, not strides), so the model is "
        "wrong at other sizes; the dynamo exporter writes `aten.sym_stride`, which torch.onnx cannot "
        "translate (\"No ONNX function found for aten.sym_stride.int\").",
        example="def forward(self, x):\n    b, h, t, n = x.size()\n    sb, sh, st, sn = x.stride()\n"
        "    return x.as_strided((b, h, t, t), (sb, sh, st - sn, sn), sn * (t - 1))",
        use_instead="def forward(self, x):\n    b, h, t, n = x.size()\n    sb, sh, st, sn = _onnx_strides(x)\n"
        "    return x.as_strided((b, h, t, t), (sb, sh, st - sn, sn), sn * (t - 1))",
        fix_safety="Safe: in eager `_onnx_strides(x)` is `x.stride()` (and `_onnx_strides(x)[d]` is "
        "`x.stride(d)`, negative d included); while an exporter traces, a contiguous tensor's strides are "
        "the products of its trailing sizes, which is what `x.stride()` is for one, computed from the "
        "traced or symbolic sizes; a non-contiguous tensor keeps `x.stride()`. The legacy exporter's "
        "as_strided still needs its arguments constant: `onnxfix export --fix` decomposes it (as_strided).",
        references=("https://github.com/k2-fsa/icefall/pull/796",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "stride") or ctx.compiled_by_torchscript:
            return
        if ctx.tensors.is_tensor(func.value) is False:  # `.stride()` is a tensor's method (a layer's is an attribute)
            return
        dims = [*node.args, *(k.value for k in node.keywords if k.arg == "dim")]
        if len(dims) > 1 or len(node.args) + len(node.keywords) != len(dims) or any(
                isinstance(d, ast.Starred) for d in dims):
            return
        tensor = ctx.segment(func.value)
        text = f"{STRIDES.name}({tensor})" + (f"[{ctx.segment(dims[0])}]" if dims else "")
        fix = Fix("Read the strides with `_onnx_strides`", (ctx.replace(node, text),), safe=True,
                  imports=("torch",), helpers=(STRIDES,))
        yield ctx.report(
            self, node,
            f"`{ctx.segment(node)}`: the legacy exporter records strides as the export-time numbers and the dynamo "
            "exporter cannot translate them (aten.sym_stride); `_onnx_strides` computes a contiguous tensor's "
            "strides from its sizes while exporting",
            fix=fix,
        )


RULES = [TensorStrides]

"""ONX407: `torch.linspace(0, n - 1, steps=n)` with `n` a size: the positions 0 .. n-1 as a range.

Diffusion transformers (ComfyUI's Flux, PixArt) and detection heads build position ids as
`torch.linspace(0, h_len - 1, steps=h_len)`. torch.export specializes the size `steps` comes
from: measured on torch 2.13, the dynamo export fails on a dynamic height, or (Flux's image ids,
tests/realworld/flux_img_ids_linspace_assign.py) fails in onnxruntime on other latent sizes,
while `torch.arange(h_len, dtype=...)`, the same values, exports OK.
"""

from __future__ import annotations

import ast

from onnxfix.decompositions import helper_source
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix, Helper, Rule, RuleDoc

SAME_KEYWORDS = frozenset({"dtype", "device", "layout", "requires_grad"})
LINSPACE_STEPS = Helper("_onnx_linspace_steps", helper_source("linspace_steps"))


class SizeLinspace(Rule):
    code = "ONX407"
    name = "size-linspace"
    summary = "`torch.linspace(a, b, n)` with `n` a size: an arange while exporting (`torch.arange(n)` for 0 .. n-1)"
    fix_availability = "sometimes"
    default_safety = "per-finding"
    exporters = ("dynamo",)  # the legacy exporter traces linspace over a size correctly (measured)
    triggers = ("linspace",)
    doc = RuleDoc(
        what="Finds `torch.linspace(a, b, n)` (`steps=` or positional, any `dtype=`/`device=`) in "
        "export-time code where `n` is a tensor size: position ids `torch.linspace(0, n - 1, n)` (the "
        "integers 0 .. n-1 as floats), and other points over a size (dsntnn's normalised coordinate "
        "grid, `torch.linspace(-(n - 1) / n, (n - 1) / n, n)`, in MobilePose).",
        why="torch.export specializes the size a linspace's `steps` comes from. Measured on torch 2.13: "
        "position ids over a dynamic height fail the dynamo export (\"conflicts between user-specified "
        "ranges and inferred ranges\", tests/flow_models/linspace_positions.py), and Flux's image ids "
        "export but fail in onnxruntime for other latent sizes (\"invalid expand shape\"); with "
        "`torch.arange(n, dtype=...)` both are OK. The legacy exporter traces either correctly. "
        "ATen's schema takes `steps` as an `int`, not a SymInt, which is why any linspace over a "
        "dynamic size specializes it (MobilePose's grid: onnxruntime fails on other heatmap sizes).",
        example="def forward(self, x):\n    h = x.shape[2]\n"
        "    ids = torch.linspace(0, h - 1, steps=h, dtype=x.dtype)\n    return x + ids.view(1, 1, -1, 1)",
        use_instead="def forward(self, x):\n    h = x.shape[2]\n"
        "    ids = torch.arange(h, dtype=x.dtype)\n    return x + ids.view(1, 1, -1, 1)",
        fix_safety="Unsafe: the values agree (linspace's step is (n-1)/(n-1) = 1 exactly, so each "
        "value is the integer itself) wherever the dtype holds those integers exactly (below 2**24 "
        "in float32, 2**11 in float16, 2**8 in bfloat16), but ATen computes them another way "
        "(linspace fills the upper half from the end), so beyond that the roundings may differ; "
        "without `dtype=` the range gets `torch.get_default_dtype()`, as linspace does. Other "
        "points over a size: safe, `_onnx_linspace_steps` calls torch.linspace itself outside "
        "torch.export (eager and the legacy exporter, bit for bit); while torch.export traces, it "
        "builds the points from an arange as ATen fills them (the lower half from `a`, the upper from "
        "`b`), which the export's comparison with eager checks. `layout=`/`requires_grad=`: no fix.",
        references=("https://github.com/Comfy-Org/ComfyUI/pull/5490",),
    )

    def visit_Call(self, node: ast.Call, ctx: FunctionContext):
        if ctx.qualname(node.func) != "torch.linspace":
            return
        parts = _parts(node)
        if parts is None:
            return
        start, end, steps, keywords = parts
        if not ctx.sizes.is_size(steps):
            return
        if not (_is_zero(start) and _is_minus_one(end, steps)):
            yield from self._any_points(node, start, end, steps, keywords, ctx)
            return
        torch_name, imports = ctx.torch_name()
        extras = [ctx.segment(k) for k in keywords]
        if not any(k.arg == "dtype" for k in keywords):
            extras.insert(0, f"dtype={torch_name}.get_default_dtype()")
        text = f"{ctx.segment(node.func).removesuffix('linspace')}arange({', '.join([ctx.segment(steps), *extras])})"
        fix = Fix("Count with `torch.arange` in the same dtype", (ctx.replace(node, text),), safe=False, imports=imports)
        yield ctx.report(self, node, f"`torch.linspace(0, {ctx.segment(end)}, ...)` over `{ctx.segment(steps)}`, a size: "
                         "the integers 0 .. n-1; torch.export specializes the size, and other sizes fail; "
                         "`torch.arange` gives the same values", fix=fix)


    def _any_points(self, node, start, end, steps, keywords, ctx: FunctionContext):
        """`torch.linspace(a, b, n)` over a size `n`: the export-only helper (eager runs linspace)."""
        if any(k.arg in ("layout", "requires_grad") for k in keywords) or ctx.compiled_by_torchscript:
            fix = None  # TorchScript compiles no `**kwargs` helper
        else:
            arguments = ", ".join([ctx.segment(start), ctx.segment(end), ctx.segment(steps), *map(ctx.segment, keywords)])
            fix = Fix("Build the points from an arange while exporting", (ctx.replace(node, f"_onnx_linspace_steps({arguments})"),),
                      safe=True, imports=("torch",), helpers=(LINSPACE_STEPS,))
        yield ctx.report(self, node, f"`torch.linspace` over `{ctx.segment(steps)}`, a size: torch.export reads its "
                         "`steps` as a plain int and specializes the size (other sizes fail); build the points from "
                         "an arange while exporting", fix=fix)


def _parts(node: ast.Call):
    """(start, end, steps, the other keywords) of a linspace call with nothing else."""
    args = list(node.args)
    keywords = {k.arg: k.value for k in node.keywords}
    if None in keywords or any(isinstance(a, ast.Starred) for a in args) or len(args) > 3:
        return None
    names = ["start", "end", "steps"]
    values = dict(zip(names, args))
    for name in names[len(args):]:
        if name in keywords:
            values[name] = keywords.pop(name)
    if len(values) != 3 or set(keywords) - SAME_KEYWORDS:
        return None
    return values["start"], values["end"], values["steps"], [k for k in node.keywords if k.arg in keywords]


def _is_zero(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value == 0


def _is_minus_one(end: ast.expr, steps: ast.expr) -> bool:
    """`end` is `steps - 1`, as written."""
    strip = lambda n: ast.dump(n, annotate_fields=False, include_attributes=False)
    return (isinstance(end, ast.BinOp) and isinstance(end.op, ast.Sub) and isinstance(end.right, ast.Constant)
            and end.right.value == 1 and type(end.right.value) is int and strip(end.left) == strip(steps))


RULES = [SizeLinspace]

"""ONX404's resize by a float scale computed from sizes (ViT/DINOv2's position embeddings:
`F.interpolate(pos, scale_factor=((h + 0.1) / math.sqrt(n), ...), mode="bicubic")`): torch.export
reads the scale as a constant and the exported model keeps the example's output size. The fix is
an export-only helper: eager (and the legacy exporter) call F.interpolate itself."""

from __future__ import annotations

import ast

from onnxfix.decompositions import helper_source
from onnxfix.patterns.operators.arguments import held_literal
from onnxfix.rewriter.context import FunctionContext
from onnxfix.rewriter.rule import Fix, Helper

INTERPOLATE_SCALED = Helper("_onnx_interpolate_scaled", helper_source("interpolate_scaled"))
# an antialiased resize: torch's filter weights, built by resample_antialias's helper
ANTIALIAS_WEIGHTS = Helper("_onnx_resample_antialias", helper_source("resample_antialias"))
# the modes whose matrices are measured against ATen's kernels (tests/test_export_scaled_resize.py);
# not nearest, whose kernels disagree on the index a size keeps
MATRIX_MODES = frozenset({"bicubic", "bilinear", "linear"})
HELPER_KEYWORDS = frozenset({"scale_factor", "mode", "align_corners", "antialias"})


def matrix_mode(node: ast.Call, ctx: FunctionContext) -> str | None:
    """The call's `mode` when the helper computes it (bicubic): a literal, or the one literal a
    local name or `self.<attr>` holds (`mode=self.interpolate_mode`, set in __init__)."""
    mode = next((k.value for k in node.keywords if k.arg == "mode"), None)
    value = None if mode is None else held_literal(mode, ctx)
    value = mode.value if isinstance(mode, ast.Constant) else value
    return value if isinstance(value, str) and value in MATRIX_MODES else None


def scaled_resize_fix(node: ast.Call, ctx: FunctionContext) -> Fix | None:
    """`F.interpolate(x, scale_factor=s, mode="bicubic", ...)` -> `_onnx_interpolate_scaled(...)`
    (bilinear, linear and antialiased bilinear / bicubic too): only the callee changes. Safe: eager runs F.interpolate with the same arguments; under
    torch.export the helper builds the interpolation from the symbolic scale. None for other
    arguments (a positional size, `recompute_scale_factor`), `**kwargs`, or TorchScript."""
    antialias = next((k.value for k in node.keywords if k.arg == "antialias"), None)
    held = None if antialias is None else (antialias.value if isinstance(antialias, ast.Constant)
                                           else held_literal(antialias, ctx))
    if (len(node.args) != 1 or any(k.arg not in HELPER_KEYWORDS for k in node.keywords)
            or isinstance(node.args[0], ast.Starred) or ctx.compiled_by_torchscript
            or not (antialias is None or held in (False, True))):
        return None  # antialias from a value the source does not fix: which path runs is unknown
    if held is True and matrix_mode(node, ctx) == "linear":
        return None  # 1-D: F.interpolate has no antialiased linear resize
    helpers = (ANTIALIAS_WEIGHTS, INTERPOLATE_SCALED) if held is True else (INTERPOLATE_SCALED,)
    return Fix("Resize by the symbolic scale while exporting (`_onnx_interpolate_scaled`)",
               (ctx.replace(node.func, "_onnx_interpolate_scaled"),), safe=True, imports=("torch",),
               helpers=helpers)

"""Export-time repairs of op variants both exporters translate as they are and onnxruntime then
refuses, keyed on its error: an Einsum whose ellipsis covers different numbers of dims in two inputs
(its shape inference rejects the model), a ConvTranspose whose output padding is not below its stride
(ATen allows it up to the dilation). The source shows the first; the second often comes from an
nn.ConvTranspose layer's settings, which only the run sees in the op's arguments."""

from __future__ import annotations

from onnxfix.decompositions.base import Decomposition, Proof

DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "einsum_ellipsis", ("torch.einsum",), True, (), ("https://github.com/onnx/onnx/issues/5739",),
        "An einsum with `...` in an explicit equation whose inputs' ellipses cover different numbers of dims "
        "(`\"...ik, ...j -> ij\"` on a 3-D and a 1-D input): onnxruntime's shape inference refuses the ONNX "
        "Einsum (\"Ellipsis for input 1 represents 0 dimensions\"). While exporting, the ellipsis is spelled "
        "out as letters the equation does not use, right-aligned across the inputs as einsum broadcasts them "
        "(from the inputs' ranks, which the exported graph keeps anyway); an implicit output (no `->`) is "
        "left to the op. Export time only, keyed on onnxruntime's error; `onnxfix export --write` writes the "
        "helper at the call. Eager keeps the op.",
        static=False, rule="ONX515", repairs_error=r"\[ShapeInferenceError\] Ellipsis for input \d+ represents",
        site_applies=lambda args, kwargs: bool(args) and isinstance(args[0], str) and "..." in args[0],
        proof=Proof("torch.einsum('...ik, ...j -> ij', a, c)", "_onnx_einsum_ellipsis('...ik, ...j -> ij', a, c)",
                    "(randn(g, b, 2, 3), randn(g, 4))", params="a, c", static=(1,), decomposition_tol=1e-6),
    ),
    Decomposition(
        "conv_transpose_padded", ("torch.nn.functional.conv_transpose1d", "torch.nn.functional.conv_transpose2d",
                                  "torch.nn.functional.conv_transpose3d"), True, (),
        ("https://github.com/microsoft/onnxruntime/issues/14208",),
        "A transposed convolution whose output padding is not below its stride, which ATen allows up to the "
        "dilation (`nn.ConvTranspose2d(stride=1, dilation=2, output_padding=1)`): onnxruntime's ConvTranspose "
        "refuses it (\"output_padding (1) may be too large for stride (1)\"). The output padding only uncrops "
        "the end of the same transposed convolution: while exporting, the full one (no padding), zeros past its "
        "end where no input reaches, the crop to ATen's size, then the bias (the sums in another order than "
        "ATen's kernel: float rounding). Export time only, keyed on onnxruntime's error. Eager keeps the op.",
        static=False, rule="ONX515", repairs_error=r"output_padding \(\d+\) may be too large for stride",
        proof=Proof("torch.nn.functional.conv_transpose2d(a, w, None, 1, 1, 1, 1, 2)",
                    "_onnx_conv_transpose_padded(a, w, None, 1, 1, 1, 1, 2)",
                    "(randn(g, b, 4, 5, 6), randn(g, 4, 3, 3, 3))", params="a, w", static=(1,),
                    decomposition_tol=1e-5),
    ),
)

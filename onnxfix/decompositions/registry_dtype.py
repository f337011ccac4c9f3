"""Export-time repairs of a dtype the exported graph gets wrong: a range of mixed int and float
bounds (the static fix is ONX530's `dtype=`; this serves code the source rules cannot see, such
as a library's, and bounds whose types only the run knows)."""

from __future__ import annotations

from onnxfix.decompositions.base import Decomposition, Proof

DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "arange_mixed", ("torch.arange",), True, (), ("https://github.com/open-mmlab/mmdeploy/issues/662",),
        "A range with an int and a float bound and no dtype: eager infers the default float dtype; "
        "torch.onnx's aten.arange.start writes an ONNX Range of an int64 and a float that "
        "onnxruntime refuses to load. While exporting, such a call passes the dtype eager infers. "
        "Export time only (the static fix is ONX530's `dtype=`), keyed on onnxruntime's type "
        "error. Eager keeps the op.",
        static=False, rule="ONX515",
        repairs_error=r"Type parameter \(T\) of Optype \(\w+\) bound to different types",
        proof=Proof("a + torch.arange(0, 4.0) + torch.arange(0.5, a.shape[0])[:, None]",
                    "a + _onnx_arange_mixed(0, 4.0) + _onnx_arange_mixed(0.5, a.shape[0])[:, None]",
                    "(randn(g, b, 4),)"),
    ),
)

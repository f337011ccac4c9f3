"""Export-time repairs of a dtype the exported graph gets wrong or onnxruntime has no kernel for
(float32_compute: ops on float64 / bfloat16 tensors, float16 accumulating scatters, bool
selections and sums), a range of mixed int and float bounds (the static fix is ONX530's `dtype=`;
this serves code the source rules cannot see, such as a library's, and bounds whose types only the
run knows)."""

from __future__ import annotations

from onnxfix.decompositions.base import Decomposition, Proof

DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "float32_compute",
        ("torch.nn.functional.conv1d", "torch.nn.functional.conv2d", "torch.nn.functional.conv3d",
         "torch.nn.functional.conv_transpose1d", "torch.nn.functional.conv_transpose2d",
         "torch.nn.functional.conv_transpose3d", "torch.nn.functional.linear", "torch.matmul", "torch.bmm",
         "torch.mm", "Tensor.__matmul__", "Tensor.matmul", "Tensor.bmm", "Tensor.mm",
         "torch.nn.functional.adaptive_avg_pool1d", "torch.nn.functional.adaptive_avg_pool2d",
         "torch.nn.functional.adaptive_avg_pool3d", "torch.nn.functional.avg_pool1d", "torch.nn.functional.avg_pool2d",
         "torch.nn.functional.avg_pool3d", "torch.nn.functional.max_pool1d", "torch.nn.functional.max_pool2d",
         "torch.nn.functional.max_pool3d"),
        False, (), ("https://github.com/microsoft/onnxruntime/issues/11476",
                    "https://github.com/microsoft/onnxruntime/issues/26311"),
        "Every op on float64 or bfloat16 tensors (first written for convolutions, matmuls and "
        "poolings; LSTMs, adds and layer norms too), which onnxruntime's CPU provider has no "
        "kernel for (Conv, GlobalAveragePool and LSTM in double, MatMul and Add in bfloat16: "
        "NOT_IMPLEMENTED), computed in "
        "float32 between Casts while exporting (metadata calls such as `.dtype`, `.size()`, `.to()` "
        "are left alone), and bfloat16 tensors made from numbers (`torch.full(..., dtype=torch.bfloat16)`, "
        "zeros, ones, empty: made in float32 and cast). Export time only, when a run failed that "
        "way: the exported model rounds as float32 there (kept only if it matches PyTorch on "
        "the probes); eager PyTorch runs the op itself. Integer ops with no kernel for their type (int32 "
        "Unique, integer Relu, a where / maximum / minimum / two-tensor min / max / add / mul / masked_fill of bool values): exactly, in int64 or uint8; "
        "an integer addmm / addmv / baddbmm / addbmm (no integer Gemm) as a MatMul and an Add, the same integers; "
        "integer inputs of an op whose result ATen computes in float (an exp, sqrt or atan2 of int32, which the legacy "
        "exporter writes on the integers: an invalid graph) cast to that float dtype first, as ATen's TensorIterator casts them; "
        "a uint8 / int8 sum, product or scan (no uint8 CumSum) in int64, which eager returns too; a mean, sum or "
        "product of integers with a `dtype=` (a uint8 image's `mean(dtype=torch.float32)`) on the input cast to it, "
        "as ATen computes it; an integer or bool pixel_shuffle / pixel_unshuffle (no integer DepthToSpace) as "
        "torch's reshape, permutation and reshape; a bool mask's max / min / amax / amin / aminmax / cummax / cummin "
        "(no bool ArgMax / ReduceMax) on uint8, read back as bool. "
        "A float16 scatter_add / scatter_reduce / index_add / index_put that accumulates (onnxruntime has no float16 "
        "ScatterElements or ScatterND with a reduction): in float32, rounded once to float16. A random draw in a half "
        "type (a rand / randn factory of float16 or bfloat16, a bfloat16 rand_like / randn_like: no such kernel): drawn "
        "in float32 and cast (no export reproduces PyTorch's draws; sampled outputs are not compared).",
        drop_in=False, static=False, wraps_op=True, every_op=True, rule="ONX515",
        proof=Proof("torch.nn.functional.conv1d(a.double(), c.double()).float()",
                    "_onnx_float32_compute(torch.nn.functional.conv1d, a.double(), c.double()).float()",
                    "(randn(g, b, 2, 9), randn(g, 3, 2, 3))", params="a, c", static=(1,), decomposition_tol=1e-6),
    ),
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
    Decomposition(
        "bitwise_left_shift", ("torch.bitwise_left_shift", "Tensor.bitwise_left_shift", "Tensor.__lshift__"), True, (),
        ("https://github.com/microsoft/onnxruntime/issues/2207",),
        "A uint8 left shift (`mask << 7`, packing bits into bytes): torch.onnx writes every left shift as "
        "a BitShift on the unsigned type of its width cast to the signed one, so a uint8 shift comes "
        "out int8 (silently wrong from 128 up). While exporting, a uint8 shift is done in int64 and "
        "its low byte kept (exact: the bits ATen's uint8 shift gives); other dtypes are the op "
        "itself. Export time only, named by the exported model's first divergent node "
        "(`Cast node_lshift`), and written into the source at the uint8 calls a run proved. "
        "Eager keeps the op.",
        static=False, rule="ONX515",
        site_applies=lambda args, kwargs: any(getattr(a, "dtype", None) is not None and str(a.dtype) == "torch.uint8"
                                              for a in args[:2]),
        proof=Proof("torch.bitwise_left_shift(u, s) + u",
                    "_onnx_bitwise_left_shift(u, s) + u",
                    "(ints(g, 0, 256, b, 8).to(torch.uint8), ints(g, 0, 9, b, 8).to(torch.uint8))",
                    params="u, s"),
    ),
    Decomposition(
        "operands_promoted", ("torch.einsum", "torch.cat", "torch.concat", "torch.concatenate", "torch.stack",
                              "torch.hstack", "torch.vstack", "torch.bitwise_and", "torch.bitwise_or",
                              "torch.bitwise_xor", "Tensor.bitwise_and", "Tensor.bitwise_or", "Tensor.bitwise_xor",
                              "Tensor.__and__", "Tensor.__or__", "Tensor.__xor__", "Tensor.__rand__", "Tensor.__ror__",
                              "Tensor.__rxor__"), False, (),
        ("https://github.com/microsoft/onnxruntime/issues/24127",),
        "An einsum, cat or stack given floating tensors of several dtypes (Flux's RoPE: `torch.einsum(\"...n,d->...nd\", "
        "pos, omega)` with float16 positions and a float64 frequency): eager promotes them inside the "
        "op, the exporters write it with its inputs as they come, and onnxruntime refuses to load the "
        "model (`Type parameter (T) of Optype (Einsum) bound to different types`). While exporting, "
        "the floating tensors with dims are cast to their promoted dtype before the op (the cast eager "
        "makes); integer tensors beside floating ones too (V-JEPA 2's int64 positions times float32 frequencies). "
        "A bitwise and / or / xor of an integer tensor and a Python number (`torch.bitwise_and(packed_uint8, 15)`: the "
        "dynamo exporter writes the number as an int8 constant) takes the number as a tensor of the tensor's dtype, "
        "the dtype eager computes in. Its targets only, beside float32_compute's every op. Export time only, named by "
        "that load error; eager keeps the op.",
        static=False, wraps_op=True, rule="ONX515",
        repairs_error=r"Type parameter \(T\) of Optype \(\w+\) bound to different types",
        proof=Proof("torch.einsum(\"bn,d->bnd\", a.half(), c.double()).float()",
                    "_onnx_operands_promoted(torch.einsum, \"bn,d->bnd\", a.half(), c.double()).float()",
                    "(randn(g, b, 5), randn(g, 4))", params="a, c", static=(1,), decomposition_tol=1e-6),
    ),
)

"""Legacy translations onnxruntime refuses or computes wrongly: `all` of a non-bool tensor (Not on
the input: refused on load), `any` of one (a cast to int64 and a sum > 0: silently false below 1),
a pooling of an unbatched input (ONNX's pooling takes a batch: refused). Export time only, keyed on
the failure; the legacy exporter alone runs the decompositions (eager and dynamo keep the op)."""

from __future__ import annotations

from onnxfix.decompositions.base import Decomposition, Proof, call_argument

# every pooling that takes an unbatched input
_POOLS = tuple(f"torch.nn.functional.{kind}_pool{rank}d{indices}"
               for kind in ("avg", "max", "lp", "adaptive_avg", "adaptive_max") for rank in (1, 2, 3)
               for indices in (("", "_with_indices") if kind.endswith("max") else ("",)))  # (return_indices=True)

DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "all_nonzero", ("torch.all", "Tensor.all"), True, (), (),
        "`all` of a non-bool tensor reduced as `input != 0` (the same truth values, NaN true; uint8 keeps "
        "uint8): the legacy exporter writes Not on the input itself, which ONNX defines on bool only, "
        "and onnxruntime refuses the model on load. Export time only, keyed on that error (a padding "
        "mask in float or int64 reduced with `.all(1)`: every `.all()` of a bool mask exports). Eager "
        "and dynamo keep the op.",
        static=False, rule="ONX519",
        repairs_error=r"Type 'tensor\((?:float|double|float16|int64|int32|int8|uint8)\)' of input parameter \([^)]*\) of operator \(N",
        proof=Proof("(a > 0).float().all(-1).float() + (a > 0).long().all(1).float()",
                    "_onnx_all_nonzero((a > 0).float(), -1).float() + _onnx_all_nonzero((a > 0).long(), 1).float()",
                    "(randn(g, b, 3, 3) + 1,)"),
    ),
    Decomposition(
        "unbatched_pool", _POOLS, True, (), (),
        "A pooling of an unbatched input (C, *spatial), run with a batch of one while the legacy exporter "
        "traces (unsqueeze, the op, squeeze: the same op on the same values): it writes ONNX's pooling, "
        "which takes (N, C, *spatial), on the input as it is, and onnxruntime refuses the model. Export "
        "time only, keyed on onnxruntime's shape inference rejecting a pooling's attributes; batched "
        "calls run the op. Eager and dynamo keep the op.",
        static=False, wraps_op=True, rule="ONX519",
        repairs_error=r"\((?:AveragePool|MaxPool|LpPool)\) \[ShapeInferenceError\] (?:Attribute \w+ has incorrect size|"
                      r"Input tensor must have at least 3 dim)",
        proof=Proof("torch.nn.functional.avg_pool2d(a[0], 2) + torch.nn.functional.max_pool2d(a[0], 2)",
                    "_onnx_unbatched_pool(torch.nn.functional.avg_pool2d, a[0], 2) + _onnx_unbatched_pool("
                    "torch.nn.functional.max_pool2d, a[0], 2)",
                    "(randn(g, b, 3, 6, 8),)"),
    ),
    Decomposition(
        "any_nonzero", ("torch.any", "Tensor.any"), True, (), (),
        "`any` of a non-bool tensor reduced as `input != 0` (the same truth values, NaN true; uint8 keeps "
        "uint8): the legacy exporter casts the input to int64 and tests its sum > 0, so values below 1 in "
        "magnitude count as false and negatives cancel positives, silently. Export time only, keyed on a "
        "Greater node (the translation's last) first differing from eager; the run's calls on a non-bool "
        "tensor are written into the source. Eager and dynamo keep the op.",
        static=False, rule="ONX519", repairs_divergence=r"^Greater ", one_pattern=True,
        site_applies=lambda args, kwargs: str(getattr(call_argument(args, kwargs, 0, "input"), "dtype",
                                                      "torch.bool")) != "torch.bool",
        proof=Proof("torch.any(a, -1).float() + a.any().float()",
                    "_onnx_any_nonzero(a, -1).float() + _onnx_any_nonzero(a).float()",
                    "(randn(g, b, 3, 4) * (randn(g, b, 3, 4) > 1),)"),
    ),
)

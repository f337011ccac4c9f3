"""Elementwise ops the legacy (TorchScript) exporter has no symbolic for, found by the op_db probe
(every argument pattern fails: docs/opdb.md) and by ordinary model code: rounding, the hyperbolic
functions, exponentials, angle conversions, addcdiv and a non-zero threshold. ONX517; the dynamo
exporter translates each, so every helper keeps the op under dynamo (and in eager)."""

from __future__ import annotations

from onnxfix.decompositions.base import PYTORCH, Decomposition, Proof, proven

ONNX = "https://github.com/onnx/onnx/issues/"
GUARDED = " Eager and dynamo keep the op (guarded helper): composed from other kernels than ATen's."


def _unary(key: str, targets: tuple[str, ...], notes: str, inputs: str, **kwargs) -> Decomposition:
    """A one-argument op, proven on ``inputs`` (an expression over `g` and `b`)."""
    return proven(key, targets, notes + GUARDED, "ONX517", f"{targets[0]}(a)", inputs, **kwargs)


DECOMPOSITIONS: tuple[Decomposition, ...] = (
    _unary("trunc", ("torch.trunc", "Tensor.trunc", "torch.fix", "Tensor.fix"),
           "ceil below 0, floor above (exact); integer tensors are their own truncation.",
           "(randn(g, b, 9) * 4,)", tol=0.0, evidence=(PYTORCH + "40504",)),
    _unary("expm1", ("torch.expm1", "Tensor.expm1", "torch.special.expm1"),
           "Kahan's (exp(x) - 1) * x / log(exp(x)), which keeps the precision of small x; inf, "
           "-1 and NaN as torch.", "(randn(g, b, 9) * 3,)"),
    _unary("sinh", ("torch.sinh", "Tensor.sinh"),
           "expm1-based (e - 1/e) / 2 for |x| <= 20, exp(|x| - ln 2) above; odd.", "(randn(g, b, 9) * 4,)",
           requires=("expm1",)),
    _unary("cosh", ("torch.cosh", "Tensor.cosh"),
           "E + 1 / (4 E), E = exp(|x| - ln 2): overflows only where cosh does.", "(randn(g, b, 9) * 4,)"),
    _unary("asinh", ("torch.asinh", "Tensor.asinh", "torch.arcsinh", "Tensor.arcsinh"),
           "log1p(a + a^2 / (1 + sqrt(1 + a^2))) with the sign of x, log(a) + ln 2 above 1e8.",
           "(randn(g, b, 9) * 5,)"),
    _unary("acosh", ("torch.acosh", "Tensor.acosh", "torch.arccosh", "Tensor.arccosh"),
           "log1p(t + sqrt(2 t + t^2)), t = x - 1; log(x) + ln 2 above 1e8; NaN below 1.",
           "(positive(g, b, 9) + 1,)"),
    _unary("atanh", ("torch.atanh", "Tensor.atanh", "torch.arctanh", "Tensor.arctanh"),
           "log1p(2 x / (1 - x)) / 2: +-inf at +-1, NaN beyond.", "(torch.rand(b, 9, generator=g) * 1.8 - 0.9,)",
           rtol=2e-4),
    Decomposition(
        "erfc", ("torch.erfc", "Tensor.erfc", "torch.special.erfc"), True, (), (),
        "1 - erf(x) below 0.5, erfcx(x) exp(-x^2) above (`_onnx_erfcx`'s continued fraction), "
        "which keeps the tail 1 - erf(x) would round to 0." + GUARDED,
        requires=("erfcx",), rule="ONX517",
        error_bound="max relative error 2e-6 in float32 where the result is a normal float (erfcx's bound)",
        proof=Proof("torch.erfc(a)", "_onnx_erfc(a)", "(randn(g, b, 9) * 3,)", rtol=3e-6, decomposition_tol=1e-6),
    ),
    _unary("exp2", ("torch.exp2", "Tensor.exp2", "torch.special.exp2"),
           "pow(2, x), in the default float dtype for integer tensors.", "(randn(g, b, 9) * 4,)"),
    _unary("deg2rad", ("torch.deg2rad", "Tensor.deg2rad"),
           "x * (pi / 180), in the default float dtype for integer tensors.", "(randn(g, b, 9) * 180,)"),
    _unary("rad2deg", ("torch.rad2deg", "Tensor.rad2deg"),
           "x * (180 / pi), in the default float dtype for integer tensors.", "(randn(g, b, 9) * 4,)"),
    Decomposition(
        "addcdiv", ("torch.addcdiv", "Tensor.addcdiv"), True, (), (),
        "input + (value * tensor1) / tensor2, ATen's order." + GUARDED, rule="ONX517",
        proof=Proof("torch.addcdiv(a, c, d, value=0.5)", "_onnx_addcdiv(a, c, d, value=0.5)",
                    "(randn(g, b, 6), randn(g, b, 6), positive(g, b, 6))", params="a, c, d", decomposition_tol=1e-6),
    ),
    Decomposition(
        "threshold", ("torch.nn.functional.threshold", "torch.threshold"), True, (), (),
        "value where x <= threshold, else x (NaN stays NaN), as ATen; legacy translates only a "
        "threshold of 0 (a Relu). Exact." + GUARDED, rule="ONX517",
        proof=Proof("torch.nn.functional.threshold(a, 0.1, 20.0)", "_onnx_threshold(a, 0.1, 20.0)",
                    "(randn(g, b, 9),)"),
    ),
)

"""Fake quantization (quantization-aware training's forward): ATen's arithmetic, which neither
exporter takes from a QAT model."""

from __future__ import annotations

from onnxfix.decompositions.base import Decomposition, Proof

DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "fake_quantize_per_tensor_affine", ("torch.fake_quantize_per_tensor_affine",), True,
        ("fake_quantize_per_tensor_affine tensor qparams",), (),
        "ATen's arithmetic: clamp(round(x * (1 / scale)) + zero_point, quant_min, quant_max), then "
        "(q - zero_point) * scale (round half to even, as its nearbyint). The catalog's plain "
        "tensor qparams export; with scale and zero point derived from parameters (a QAT model) "
        "torch.export fails on the op (measured), and the learnable variant needs it. Eager keeps "
        "the op (guarded helper).",
        rule="ONX515",
        proof=Proof("torch.fake_quantize_per_tensor_affine(a, 0.05, 3, -128, 127)",
                    "_onnx_fake_quantize_per_tensor_affine(a, 0.05, 3, -128, 127)", "(randn(g, b, 8) * 4,)",
                    decomposition_tol=1e-6),
    ),
    Decomposition(
        "fake_quantize_learnable_per_tensor_affine", ("torch._fake_quantize_learnable_per_tensor_affine",), True,
        ("fake_quantize learnable",), ("https://github.com/ModelTC/MQBench/issues/183",),
        "LSQ's learnable fake quantization (MQBench, torch.ao's _LearnableFakeQuantize): forward is "
        "the per-tensor fake quantization with the zero point rounded and clamped into the range, "
        "as ATen computes it; grad_factor scales gradients only. Neither exporter translates the op. "
        "Eager keeps the op (guarded helper).",
        requires=("fake_quantize_per_tensor_affine",), rule="ONX515",
        proof=Proof("torch._fake_quantize_learnable_per_tensor_affine(a, c.abs() + 0.01, c.abs() * 5, 0, 255, 1.0)",
                    "_onnx_fake_quantize_learnable_per_tensor_affine(a, c.abs() + 0.01, c.abs() * 5, 0, 255, 1.0)",
                    "(randn(g, b, 8) * 4, randn(g, 1))", params="a, c", static=(1,), decomposition_tol=1e-6),
    ),
)

"""Random fills the exporters refuse (ONX538): each helper draws from the op's distribution with
rand_like (an ONNX RandomUniformLike) while exporting and writes the draws into the tensor, as the
in-place op does; eager keeps the op (a guarded helper: bit-identical, the same generator). No
export draws what PyTorch's generator draws: the proofs check the draws' range here, and
tests/test_decompositions_random.py their moments in onnxruntime."""

from __future__ import annotations

from onnxfix.decompositions.base import Decomposition, Proof

DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "uniform", ("Tensor.uniform_",), True, (),
        ("https://github.com/pytorch/pytorch/pull/66263", "https://github.com/pytorch/pytorch/issues/42230"),
        "rand_like(input) * (to - low) + low written into input with copy_ (RandomUniformLike: U[0, 1)); "
        "a draw rounded onto `to` becomes `low`, as in ATen's kernel. Eager keeps the op (guarded helper).",
        rule="ONX538",
        proof=Proof("(torch.empty_like(a).uniform_(2.0, to=3.0) - 2.5).abs().le(0.5).float() + a",
                    "(_onnx_uniform(torch.empty_like(a), 2.0, to=3.0) - 2.5).abs().le(0.5).float() + a",
                    "(randn(g, b, 64),)"),
    ),
    Decomposition(
        "exponential", ("Tensor.exponential_",), True, (),
        ("https://github.com/RVC-Boss/GPT-SoVITS/pull/187",),
        "-log1p(-rand_like(input)) / lambd written into input with copy_ (the inverse of the "
        "distribution function on U[0, 1) draws). Eager and dynamo keep the op (guarded helper): "
        "the dynamo exporter translates it.",
        rule="ONX538",
        proof=Proof("(torch.empty_like(a).exponential_(2.0) >= 0).float() + a",
                    "(_onnx_exponential(torch.empty_like(a), 2.0) >= 0).float() + a",
                    "(randn(g, b, 64),)"),
    ),
)

"""Ops that read a number argument out of a tensor (a pad value, an attention scale computed in the
graph): ATen takes the tensor's value as a Python number, which torch.export cannot decide ("Could not
guard on data-dependent expression") and the legacy exporter records as a constant. Export time
only: the run's calls with a tensor there are the ones rewritten (site_applies); a data-dependent
guard names pad_tensor_value only where it was raised inside F.pad (repairs_at)."""

from __future__ import annotations

from onnxfix.decompositions.base import Decomposition, Proof, call_argument

# a number read out of a tensor (u0: an int or bool, zuf0: a float) that a guard needed
_READ_NUMBER = r"Could not (guard on|extract specialized integer from) data-dependent expression"


DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "sdpa_tensor_scale", ("torch.nn.functional.scaled_dot_product_attention",), True, (),
        ("https://github.com/DataZooDE/anofox-tabfm/blob/2b46f22485db1d34cf2600b4cfde0048af45328d/tools/"
         "export_tabdpt/src/export_tabdpt/tabdpt_patches.py",),
        "Attention whose `scale=` is a tensor (a temperature computed from the context's length): the op "
        "reads it as a Python float, which torch.export cannot decide (\"Could not guard on data-dependent "
        "expression zuf0\") and the legacy exporter records as a constant. While exporting, ATen's math "
        "path with the scale a graph value (the square root of its magnitude on q and on k, the mask or "
        "causal triangle, fully masked rows zeros). Export time only, keyed on a float read out of a "
        "tensor; calls whose scale is a number run the op. Eager keeps the op.",
        static=False, rule="ONX515", repairs_error=r"Could not guard on data-dependent expression zuf\d+",
        site_applies=lambda args, kwargs: type(kwargs.get("scale")).__name__ == "Tensor",
        proof=Proof("torch.nn.functional.scaled_dot_product_attention(a, c, c, scale=c[0, 0, 0, 0].abs() + 0.1)",
                    "_onnx_sdpa_tensor_scale(a, c, c, scale=c[0, 0, 0, 0].abs() + 0.1)",
                    "(randn(g, b, 2, 4, 8), randn(g, b, 2, 6, 8))", params="a, c", decomposition_tol=1e-5),
    ),
    Decomposition(
        "pad_tensor_value", ("torch.nn.functional.pad",), True, (),
        ("https://github.com/lucidrains/x-transformers/commit/4e1a52034ef0b54c281b47a637706e8068df0c1b",),
        "A constant pad whose `value=` is a tensor (x-transformers extending a mask over memory tokens "
        "with `value=torch.any(mem)`): ATen reads the value as a number, which torch.export cannot decide "
        "and the legacy exporter records as a constant. While exporting, the zero-padded input and the "
        "value where a mask padded alike is zero (exact: values are selected). Export time only, keyed on "
        "a number read out of a tensor (dynamo) or on a Pad node first differing from eager (legacy); calls "
        "whose value is a number run the op. Eager keeps the op.",
        static=False, rule="ONX515", repairs_error=_READ_NUMBER, repairs_at=r"torch/nn/functional\.py:pad$", repairs_divergence=r"^Pad ",
        one_pattern=True,
        site_applies=lambda args, kwargs: type(call_argument(args, kwargs, 3, "value")).__name__ == "Tensor",
        proof=Proof("torch.nn.functional.pad(a, (1, 2, 0, 1), value=a.amax())",
                    "_onnx_pad_tensor_value(a, (1, 2, 0, 1), value=a.amax())",
                    "(randn(g, b, 3, 4),)", params="a"),
    ),
)

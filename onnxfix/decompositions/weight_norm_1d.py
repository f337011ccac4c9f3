import torch


def _onnx_weight_norm_1d(v, g, dim=0):
    # torch._weight_norm(v, g, dim), as nn.utils.weight_norm's hook and its parametrization call it:
    # v * (g / the 2-norm of v over every dim but `dim`). For a 1-D v (a weight-normalised PReLU or
    # norm layer) with dim=0 that is no dim at all, each element's own |v|; both exporters reduce
    # over an empty axes list, which ONNX's ReduceL2 takes as every axis: one norm for the whole
    # vector. While exporting, |v| itself (the square root of v squared, as ATen computes that norm,
    # is |v| in binary floating point while v squared neither overflows nor underflows). Any other
    # call runs the op. Eager keeps the op.
    if not torch.onnx.is_in_onnx_export() or v.dim() != 1 or dim != 0:
        return torch._weight_norm(v, g, dim)
    return v * (g / v.abs())

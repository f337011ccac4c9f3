import torch


def _onnx_remainder_symbolic(input, other):
    # `t % n` with n read from a dynamic size (a SymInt while torch.export traces) is
    # aten.remainder.Scalar, whose ONNX function builds a constant from n and fails ("int()
    # argument must be ... not 'SymbolicTensor'": TimesFM's `(idx_range - indices) % num_seq`).
    # While exporting, an integer tensor's remainder is written as Python's own definition,
    # t - floor(t / n) * n (exact in integers, the divisor's sign kept), with a floor division
    # torch.onnx translates for a symbolic divisor. Eager keeps the op.
    if (
        not torch.onnx.is_in_onnx_export() or isinstance(other, torch.Tensor) or not isinstance(input, torch.Tensor)
        or input.is_floating_point() or input.is_complex()
    ):
        return torch.remainder(input, other)
    return input - torch.div(input, other, rounding_mode="floor") * other

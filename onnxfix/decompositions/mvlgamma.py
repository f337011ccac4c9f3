import torch


def _onnx_mvlgamma(input, p):
    # ATen's mvlgamma: sum_{i<p} lgamma(x - i/2) + p(p-1)/4 log(pi), with `p` a Python int.
    # torch raises when some x <= (p-1)/2 (a data-dependent check an exported graph cannot
    # make); the helper returns +inf or a value there instead.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.mvlgamma(input, p)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    offsets = (torch.arange(p, dtype=x.dtype, device=x.device) - (p - 1)) * 0.5  # -(p-1)/2 .. 0, as ATen
    terms = _onnx_lgamma(x.unsqueeze(-1) + offsets)
    return terms.sum(-1) + p * (p - 1) * 1.1447298858494002 * 0.25  # log(pi), in ATen's order

import torch


def _onnx_corrcoef(input):
    # ATen's corrcoef: the covariance (exportable through _onnx_cov) normalised by the standard
    # deviations, then clipped to [-1, 1] as torch does.
    c = _onnx_cov(input)
    if c.dim() == 0:
        return c / c  # one variable: NaN for nan/inf/0 covariance, else 1, as torch
    d = c.diagonal()
    stddev = torch.sqrt(d.real if d.is_complex() else d)
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    if c.is_complex():
        return torch.complex(torch.clip(c.real, -1, 1), torch.clip(c.imag, -1, 1))
    return torch.clip(c, -1, 1)

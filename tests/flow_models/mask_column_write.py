"""ONX704: each positive value written to the first column of a result (`r[mask, 0] = R[mask]`,
a boolean mask beside an integer index). The legacy exporter reshapes the mask's indices against
the integer index wrongly: onnxruntime fails. Fixed (unsafely: the mask must cover every axis
before the index) by `r[..., 0] = torch.where(mask, R, r[..., 0])`."""
import torch
from torch import nn


class ColumnWrite(nn.Module):
    def forward(self, R: torch.Tensor):
        r = torch.zeros((R.shape[0], 2), dtype=R.dtype, device=R.device)
        mask = R > 0
        r[mask, 0] = R[mask]
        return r * 2


def make_model():
    return ColumnWrite()


def example_inputs():
    return (torch.tensor([0.5, -1.0, 2.0, 0.0]),)


def probe_inputs():
    return [(torch.tensor([-0.3, 1.5, 0.7]),), (torch.tensor([2.0, -2.0, 3.0, -3.0, 0.1, 0.2]),)]


DYNAMIC = {0: {0: "batch"}}

"""ONX410: fairseq's transformer encoder pads the frames to a multiple, masks the pad with
`padding_mask[:, -pad_length:] = True` and crops it back with `x[:, :-pad_length]`, both under
`if pad_length > 0`. The legacy exporter computes `-pad_length` from the traced sizes and keeps the
branch the example took (its length needs padding): for a length that needs none the bound is 0, so
the mask covers every frame and the crop keeps none. While tracing, the bounds count from the start
(`size - pad_length`): the same slices for every positive amount, nothing masked or cut for 0. Eager
keeps `-pad_length` (safe). torch.export is wrong here the same way and keeps it (the fix is for
the tracer only: in fairseq's HuBERT the subtraction makes torch.export fail)."""
import torch
import torch.nn.functional as F
from torch import nn


class PaddedEncoder(nn.Module):
    def __init__(self, dim=8, multiple=4):
        super().__init__()
        self.multiple = multiple
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, padding_mask=None):
        pad_length = (self.multiple - x.shape[1] % self.multiple) % self.multiple
        x = F.pad(x, (0, 0, 0, pad_length))
        if pad_length > 0 and padding_mask is None:
            padding_mask = x.new_zeros((x.size(0), x.size(1)), dtype=torch.bool)
            padding_mask[:, -pad_length:] = True
        x = self.proj(x)
        if padding_mask is not None:
            x = x.masked_fill(padding_mask[..., None], 0.0)
        x = x.cumsum(1)  # every frame after a masked one sees it
        if pad_length > 0:
            x = x[:, :-pad_length]
        return x


def make_model():
    torch.manual_seed(0)
    return PaddedEncoder()


def example_inputs():
    return (torch.randn(2, 10, 8),)


def probe_inputs():
    return [(torch.randn(1, 12, 8),), (torch.randn(3, 7, 8),), (torch.randn(2, 16, 8),)]


DYNAMIC = {0: {0: "batch", 1: "time"}}

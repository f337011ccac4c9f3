"""ONX608 on a pad by concatenation: Chronos-2's Patch left-pads the series with NaN to a multiple
of the patch size under `if length % patch_size != 0:` (a block of `patch_size - length %
patch_size` NaNs, `torch.concat((padding, x), dim=-1)`), then cuts patches with `unfold` (legacy:
ONX519). With the length dynamic, dynamo keeps the export-time branch (silently wrong where the
length divides) and legacy cannot lower unfold; the block taken modulo is empty where it divides."""
import torch
from torch import nn


class Patch(nn.Module):
    def __init__(self, patch_size: int = 4) -> None:
        super().__init__()
        self.patch_size = patch_size

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        length = x.shape[-1]
        if length % self.patch_size != 0:
            padding_size = (*x.shape[:-1], self.patch_size - (length % self.patch_size))
            padding = torch.full(size=padding_size, fill_value=torch.nan, dtype=x.dtype, device=x.device)
            x = torch.concat((padding, x), dim=-1)
        patches = x.unfold(dimension=-1, size=self.patch_size, step=self.patch_size)
        return torch.nan_to_num(patches, nan=-1.0)


def make_model():
    return Patch()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 10),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(3, 12),), (torch.randn(1, 17),)]


DYNAMIC = {0: {0: "batch", 1: "length"}}

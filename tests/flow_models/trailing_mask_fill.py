"""ONX705: a number written through a boolean mask of the trailing axes (sleap-nn's peak finder,
`patches_masked[..., ~kernel_mask] = float("-inf")` on 3x3 windows). The dynamo exporter's index_put
fails ("Boolean index_put with multiple indices does not support None indices") and the legacy
exporter writes a graph onnx's checker refuses; `masked_fill_` writes the same elements."""
import torch
from torch import nn


class WindowPeaks(nn.Module):
    def forward(self, x):
        kernel_mask = torch.arange(9) != 4
        windows = x.reshape(x.shape[0], -1, 9) * 2
        windows[..., ~kernel_mask] = float("-inf")
        return windows.amax(dim=-1)


def make_model():
    torch.manual_seed(0)  # the inputs drawn after it are the same for the original and the rewrite
    return WindowPeaks()


def example_inputs():
    return (torch.randn(2, 4, 9),)


def probe_inputs():
    return [(torch.randn(3, 5, 9),), (torch.randn(1, 2, 9),)]


DYNAMIC = {0: {0: "batch", 1: "windows"}}

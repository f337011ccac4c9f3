"""Frame counts turned int32 (`torch.ceil(n / hop).to(torch.int)`, Jasper's get_seq_len) and
used as slice bounds in a loop (`y[:, :frames[i]]`, which ONX207's run evidence does not cover): the legacy exporter builds each ONNX Slice from the int32 value and int64
constants, and onnxruntime refuses the model ("Type parameter (Tind) of Optype (Slice) bound to
different types"). `onnxfix export --fix` casts those bounds to int64 while exporting
(slice_bounds_int64); the source is not edited."""
import torch
from torch import nn


class FrameCrop(nn.Module):
    def __init__(self, hop=4):
        super().__init__()
        self.hop = hop
        self.proj = nn.Linear(6, 6)

    def forward(self, x, samples):
        frames = torch.ceil(samples.to(torch.float) / self.hop).to(torch.int)
        y = self.proj(x)
        heads = torch.zeros(2, y.shape[0], y.shape[2])
        for i in range(2):  # Jasper's per-utterance loop, here over the two counts
            heads[i] = y[:, :frames[i]].mean(1)
        return heads


def make_model():
    torch.manual_seed(0)
    return FrameCrop().eval()


def example_inputs():
    return (torch.randn(2, 10, 6), torch.tensor([13, 17]))


def probe_inputs():
    return [(torch.randn(3, 12, 6), torch.tensor([40, 5])), (torch.randn(1, 7, 6), torch.tensor([2, 25]))]


DYNAMIC = {0: {0: "batch", 1: "frames"}}

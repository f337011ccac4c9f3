"""Speech encoder front end that computes valid output lengths after a strided conv as
`F.relu(lengths - (kernel - 1))` on the int64 `lengths` tensor, then builds a padding mask.
The exporters emit Relu on tensor(int64), for which onnxruntime has no kernel ("Implementations
missing for INT64: ... Relu ..." raised for the dynamo exporter's int64 graphs).

Source: https://github.com/microsoft/onnxruntime/issues/16654
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"feats": {0: "batch", 2: "time"}, "lengths": {0: "batch"}}
BLIND = "operators-9"


class ConvSubsampler(nn.Module):
    def __init__(self, n_mels=40, d_model=64, kernel=3):
        super().__init__()
        self.kernel = kernel
        self.conv = nn.Conv1d(n_mels, d_model, kernel)

    def forward(self, feats, lengths):
        out = torch.relu(self.conv(feats))
        out_lengths = F.relu(lengths - (self.kernel - 1))
        steps = torch.arange(out.shape[2]).unsqueeze(0)
        mask = steps < out_lengths.unsqueeze(1)
        out = out * mask.unsqueeze(1).to(out.dtype)
        return out, out_lengths


def make_model():
    return ConvSubsampler()


def example_inputs():
    return (torch.randn(2, 40, 50), torch.tensor([50, 31]))


def other_inputs():
    return [(torch.randn(3, 40, 70), torch.tensor([70, 2, 45])),
            (torch.randn(1, 40, 20), torch.tensor([20]))]


def probe_inputs():
    return other_inputs()

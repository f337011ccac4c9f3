"""Integer transition counts, `torch.addmm(prior, onehot, transitions)` on int64 tensors: both
exporters write an ONNX Gemm, which onnxruntime has no integer kernel for (NOT_IMPLEMENTED)."""
import torch
from torch import nn

DYNAMIC = {"onehot": {0: "batch"}}


class Counts(nn.Module):
    def __init__(self, states=6):
        super().__init__()
        self.register_buffer("transitions", torch.randint(0, 5, (states, states)))
        self.register_buffer("prior", torch.ones(1, states, dtype=torch.int64))

    def forward(self, onehot):
        return torch.addmm(self.prior, onehot, self.transitions, alpha=2)


def make_model():
    torch.manual_seed(0)
    return Counts().eval()


def _onehot(n):
    return nn.functional.one_hot(torch.randint(0, 6, (n,)), 6)


def example_inputs():
    return (_onehot(4),)


def probe_inputs():
    return [(_onehot(9),), (_onehot(2),)]

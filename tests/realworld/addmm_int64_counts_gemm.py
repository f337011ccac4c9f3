"""`torch.addmm` on int64 tensors (an integer count accumulator: counts + onehot @ transitions). torchlib maps
`aten::addmm` straight to ONNX `Gemm` (the PR notes "ONNX Runtime does not support int inputs to Gemm" and
xfails the int16/int32/int64 samples), so the exported model has an int64 Gemm that onnxruntime has no
kernel for: "NOT_IMPLEMENTED : Could not find an implementation for Gemm(13)".

Source: https://github.com/microsoft/onnxscript/pull/1113
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"onehot": {0: "batch"}}
BLIND = "operators-31"


class IntTransitionCounts(nn.Module):
    def __init__(self, num_states=6):
        super().__init__()
        self.register_buffer("transitions", torch.randint(0, 5, (num_states, num_states), dtype=torch.int64))
        self.register_buffer("prior_counts", torch.ones(1, num_states, dtype=torch.int64))

    def forward(self, onehot):
        # integer counts: prior + onehot(states) @ transition counts
        return torch.addmm(self.prior_counts, onehot, self.transitions)


def make_model():
    return IntTransitionCounts().eval()


def _onehot(n):
    return nn.functional.one_hot(torch.randint(0, 6, (n,)), 6).to(torch.int64)


def example_inputs():
    return (_onehot(4),)


def other_inputs():
    return [(_onehot(9),), (_onehot(2),)]


def probe_inputs():
    return other_inputs()

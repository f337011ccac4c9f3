"""A recurrent decoding step with control flow: an LSTM run on `(x, (hn, cn))` followed by a Python branch on a
tensor input, `if sos: out += 1.` (start-of-sequence flag). The report needs both the control flow and
the LSTM in one ONNX model; tracing freezes the branch taken by the example, and exporting the scripted
module fails (isTensor() INTERNAL ASSERT, "Expected Tensor but got Bool").

Source: https://github.com/pytorch/pytorch/issues/33495
"""
import torch
from typing import Tuple
from torch import Tensor

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "seq_len", 1: "batch"}, "hn": {1: "batch"}, "cn": {1: "batch"}}
BLIND = "domains-23"

HIDDEN_SIZE = 4
NUM_LAYERS = 1


class SimpleControlFlow(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(HIDDEN_SIZE, HIDDEN_SIZE, NUM_LAYERS)

    def forward(self, x: Tensor, hn: Tensor, cn: Tensor,
                sos: Tensor,
    ) -> Tuple[Tensor, Tensor, Tensor]:
        out, (hn, cn) = self.lstm(x, (hn, cn))
        if sos:
            out += 1.
        return out, hn, cn


def gen_args(batch, seq_len, sos, hidden_size=HIDDEN_SIZE, num_layers=NUM_LAYERS):
    """Generates input args for SimpleControlFlow."""
    x = torch.randn(seq_len, batch, hidden_size)
    hn = torch.randn(num_layers, batch, hidden_size)
    cn = torch.randn(num_layers, batch, hidden_size)
    sos = torch.tensor(sos)
    return x, hn, cn, sos


def make_model():
    return SimpleControlFlow().eval()


def example_inputs():
    return gen_args(batch=2, seq_len=5, sos=True)


def other_inputs():
    return [gen_args(batch=3, seq_len=8, sos=False), gen_args(batch=1, seq_len=3, sos=True)]


def probe_inputs():
    return other_inputs()

"""TiRex (xLSTM time-series forecaster) sLSTM cell, torch backend: the recurrent kernel is cast with
`self._recurrent_kernel_.to(dtype=torch.bfloat16)` and multiplied with the bfloat16 hidden state by
`bmm`; the model exports, but onnxruntime on CPU has no bfloat16 MatMul ("NOT_IMPLEMENTED : Could
not find an implementation for MatMul(13) node with name '/blocks.0/slstm_layer/slstm_cell/MatMul'").
One recurrent step of the cell is kept (the time loop is left out).

Source: https://github.com/microsoft/onnxruntime/issues/26311
"""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}, "state": {1: "batch"}}
BLIND = "operators-2"


@dataclass
class sLSTMBlockConfig:
    embedding_dim: int
    num_heads: int
    num_states: int = 4
    num_gates: int = 4

    @property
    def head_dim(self):
        return self.embedding_dim // self.num_heads


def slstm_forward_pointwise(Wx, Ry, b, states, n_all_zero: bool):
    y, c, n, m = states

    raw = Wx + Ry + b
    iraw, fraw, zraw, oraw = torch.unbind(raw.view(raw.shape[0], 4, -1), dim=1)

    # Equations reference the xlstm paper on page 4: https://arxiv.org/pdf/2405.04517
    logfplusm = m + F.logsigmoid(torch.clamp(fraw, max=15))  # eq 15 # Clamp to avoid subnomals

    mnew = iraw if n_all_zero else torch.max(iraw, logfplusm)  # eq 15
    ogate = torch.sigmoid(oraw)  # eq 14
    igate = torch.exp(torch.clamp(iraw - mnew, max=0))  # eq 16
    fgate = torch.exp(torch.clamp(logfplusm - mnew, max=0))  # eq 17
    zgate = torch.tanh(zraw)  # eq 11
    cnew = fgate * c + igate * zgate  # eq 8
    nnew = fgate * n + igate  # eq 9
    hnew = ogate * cnew / nnew  # eq 10

    return [hnew, cnew, nnew, mnew]  # 4 x (B, H)


class sLSTMCell(nn.Module):
    def __init__(self, config: sLSTMBlockConfig):
        super().__init__()
        self.config = config
        self._recurrent_kernel_ = nn.Parameter(
            torch.empty((config.num_heads, config.head_dim, config.num_gates * config.head_dim), dtype=None)
        )
        self._bias_ = nn.Parameter(torch.empty((config.num_heads * config.num_gates * config.head_dim), dtype=None))

    def forward(self, x, state):
        # x: [B, G*H] gate pre-activations of one time step, state: [4, B, H]
        input_dtype = x.dtype
        x = x.to(dtype=torch.bfloat16)
        state = state.to(dtype=torch.bfloat16)
        recurrent_kernel = self._recurrent_kernel_.to(dtype=torch.bfloat16)
        bias = self._bias_.to(dtype=torch.float32)
        bias = (
            bias.reshape(self.config.num_heads, self.config.num_gates, self.config.head_dim)
            .permute(1, 0, 2)
            .reshape(-1)
        )

        R = recurrent_kernel
        num_gates = 4
        num_heads = R.shape[0]
        head_dim = R.shape[1]
        y, c, n, m = state.to(R.dtype).unbind(dim=0)
        B = y.shape[0]

        Ry = (
            y.view(B, num_heads, head_dim)
            .transpose(0, 1)
            .bmm(R)
            .view(num_heads, B, num_gates, head_dim)
            .permute(1, 2, 0, 3)
            .reshape(B, -1)
        )
        y, c, n, m = slstm_forward_pointwise(
            x.float(), Ry.float(), bias.float(), [y, c.float(), n.float(), m.float()], n_all_zero=False,
        )
        y, c, n, m = (t.to(dtype=R.dtype) for t in (y, c, n, m))
        return y.to(input_dtype), torch.stack([y, c, n, m]).to(input_dtype)


def make_model():
    m = sLSTMCell(sLSTMBlockConfig(embedding_dim=64, num_heads=4))
    with torch.no_grad():
        m._recurrent_kernel_.normal_(0.0, 0.1)
        m._bias_.normal_(0.0, 0.1)
    return m


def _inputs(b):
    state = torch.randn(4, b, 64) * 0.5
    state[2] = state[2].abs() + 1.0  # normaliser n > 0
    return (torch.randn(b, 4 * 64), state)


def example_inputs():
    return _inputs(2)


def other_inputs():
    return [_inputs(5), _inputs(1)]


def probe_inputs():
    return other_inputs()

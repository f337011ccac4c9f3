"""TiRex (xLSTM zero-shot forecaster) sLSTM cell, torch backend, before the PR that made it compile: the
recurrence walks the patch tokens with `for i, Wx_t in enumerate(x.unbind(dim=0))`, writes every step into a
preallocated `states_all[:, i + 1]`, and the stabiliser picks its formula with a Python
`if torch.all(n == 0.0):` on the state values. The PR replaced the branch by `torch.where(torch.all(n == 0.0), ...)`
so torch.compile/torch.export could capture the cell (bfloat16 casts of the original are left out).

Source: https://github.com/NX-AI/tirex/pull/20
"""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 1: "num_token"}}
BLIND = "domains-79"


@dataclass
class sLSTMBlockConfig:
    embedding_dim: int
    num_heads: int
    ffn_proj_factor: float = 2.6667
    num_states: int = 4
    num_gates: int = 4

    @property
    def head_dim(self):
        return self.embedding_dim // self.num_heads


class sLSTMCell(nn.Module):
    def __init__(self, config: sLSTMBlockConfig):
        super().__init__()
        self.config = config
        self._recurrent_kernel_ = nn.Parameter(
            0.1 * torch.randn((config.num_heads, config.head_dim, config.num_gates * config.head_dim))
        )
        self._bias_ = nn.Parameter(0.1 * torch.randn((config.num_heads * config.num_gates * config.head_dim)))

    def forward(self, input: torch.Tensor, state: torch.Tensor = None):
        input = self._get_input(input)
        state = self._get_state(input, state)

        all_states = self._impl_torch(input, state)

        state = all_states[:, -1]
        output = self._permute_output(all_states[0][1:])
        return output.to(input.dtype), state.to(input.dtype)

    def _impl_torch(self, input: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
        recurrent_kernel = self._recurrent_kernel_
        bias = self._bias_.to(dtype=torch.float32)

        input = input.view(input.shape[0], input.shape[1], -1)
        bias = (
            bias.reshape(self.config.num_heads, self.config.num_gates, self.config.head_dim)
            .permute(1, 0, 2)
            .reshape(-1)
        )

        return slstm_forward(input, state, recurrent_kernel, bias)[0]

    def _get_input(self, x: torch.Tensor) -> torch.Tensor:
        assert x.shape[-1] == self.config.embedding_dim * self.config.num_gates
        return x.view(x.shape[0], x.shape[1], self.config.num_gates, self.config.num_heads, -1).permute(1, 0, 2, 3, 4)

    def _get_state(self, input: torch.Tensor, state):
        B = input.shape[1]
        if state is None:
            state = torch.zeros(
                (self.config.num_states, B, self.config.embedding_dim),
                dtype=input.dtype,
                device=input.device,
            )
        assert state.shape == (self.config.num_states, B, self.config.embedding_dim)
        return state

    def _permute_output(self, output: torch.Tensor) -> torch.Tensor:
        output = output.view(output.shape[0], output.shape[1], self.config.num_heads, self.config.head_dim)
        return output.permute(1, 2, 0, 3)


def slstm_forward(x, states, R, b):
    num_states = states.shape[0]
    sequence_dim = x.shape[0]
    # this only works for a fully-connected RNN, for a hin change this
    num_gates_r = R.shape[2] // R.shape[1]
    hidden_dim = R.shape[1] * R.shape[0]
    batch_dim = x.shape[1]
    num_heads = R.shape[0]

    assert batch_dim == states.shape[1]
    assert hidden_dim == states.shape[2]

    states_all = torch.zeros(
        [num_states, sequence_dim + 1, batch_dim, hidden_dim],
        device=x.device,
        dtype=x.dtype,
    )
    states_all[:, 0] = states
    for i, Wx_t in enumerate(x.unbind(dim=0)):
        Ry = (
            states[0]
            .reshape(batch_dim, num_heads, 1, -1)
            .matmul(R.unsqueeze(0))
            .reshape(batch_dim, num_heads, num_gates_r, -1)
            .transpose(1, 2)
            .reshape(batch_dim, -1)
        )
        sdtype = states.dtype
        Wx_t, Ry, b, states = Wx_t.float(), Ry.float(), b.float(), states.float()
        states, gates = slstm_forward_pointwise(Wx_t, Ry, b, states)
        states = states.to(dtype=sdtype)
        states_all[:, i + 1] = states

    # shapes ([S, B, H], ([B,H], [B,H], [B,H])
    return states_all, states


def slstm_forward_pointwise(Wx, Ry, b, states):
    raw = Wx + Ry + b

    iraw, fraw, zraw, oraw = torch.unbind(raw.view(raw.shape[0], 4, -1), dim=1)
    y, c, n, m = torch.unbind(states.view(4, states.shape[1], -1), dim=0)

    # Equations reference the xlstm paper on page 4: https://arxiv.org/pdf/2405.04517
    logfplusm = m + F.logsigmoid(fraw)  # eq 15
    if torch.all(n == 0.0):
        mnew = iraw
    else:
        mnew = torch.max(iraw, logfplusm)  # eq 15
    ogate = torch.sigmoid(oraw)  # eq 14
    igate = torch.minimum(torch.exp(iraw - mnew), torch.ones_like(iraw))  # eq 16
    fgate = torch.minimum(torch.exp(logfplusm - mnew), torch.ones_like(iraw))  # eq 17
    zgate = torch.tanh(zraw)  # eq 11
    cnew = fgate * c + igate * zgate  # eq 8
    nnew = fgate * n + igate  # eq 9
    hnew = ogate * cnew / nnew  # eq 10

    # y (4, B, H), state (4, B, H)
    return torch.stack((hnew, cnew, nnew, mnew), dim=0), torch.stack((igate, fgate, zraw, ogate), dim=0)


class LinearHeadwiseExpand(nn.Module):
    def __init__(self, in_features, num_heads, expand_factor_up: float = 1):
        super().__init__()
        self.num_heads = num_heads
        out_features = round(expand_factor_up * in_features)
        out_features_per_head = out_features // num_heads
        self.weight = nn.Parameter(0.2 * torch.randn(num_heads, out_features_per_head, in_features // num_heads))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shape = x.shape
        x = x.view(*shape[:-1], self.num_heads, -1)
        x = torch.einsum("...hd,hod->...ho", x, self.weight)
        x = x.reshape(*shape[:-1], -1)
        return x


class sLSTMLayer(nn.Module):
    def __init__(self, config: sLSTMBlockConfig):
        super().__init__()
        self.config = config
        in_features, num_heads = config.embedding_dim, config.num_heads
        self.fgate = LinearHeadwiseExpand(in_features, num_heads)
        self.igate = LinearHeadwiseExpand(in_features, num_heads)
        self.zgate = LinearHeadwiseExpand(in_features, num_heads)
        self.ogate = LinearHeadwiseExpand(in_features, num_heads)
        self.slstm_cell = sLSTMCell(config)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x_g = torch.cat((self.fgate(x), self.igate(x), self.zgate(x), self.ogate(x)), dim=-1)
        y, slstm_state = self.slstm_cell(x_g, state=None)
        # (B, NH, S, DH) -> (B, S, NH * DH)
        return y.transpose(1, 2).reshape(x.shape[0], x.shape[1], -1)


def make_model():
    return sLSTMLayer(sLSTMBlockConfig(embedding_dim=16, num_heads=4)).eval()


def example_inputs():
    # (batch, patch tokens, embedding)
    return (torch.randn(2, 12, 16),)


def other_inputs():
    return [(torch.randn(3, 20, 16),), (torch.randn(1, 7, 16),)]


def probe_inputs():
    return other_inputs()

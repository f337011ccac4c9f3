"""TiRex (xLSTM time-series forecaster) sLSTM layer: its MultiHeadLayerNorm unpacks `B, NH, S, DH = input.shape`
and calls `F.group_norm(gn_in_2, num_groups=NH, ...)`; the PR replaced NH by a stored `self.num_heads` because
"otherwise, ONNX conversion throws an error" (num_groups taken from the traced shape is not a constant). The
recurrent sLSTM cell is replaced by a stateless gate stand-in that yields the same (B, NH, S, DH) layout.

Source: https://github.com/NX-AI/tirex/pull/28
"""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "cross-call"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 1: "length"}}
BLIND = "domains-51"


@dataclass
class sLSTMBlockConfig:
    embedding_dim: int
    num_heads: int
    num_states: int = 4
    num_gates: int = 4

    @property
    def head_dim(self):
        return self.embedding_dim // self.num_heads


class sLSTMCellStandIn(nn.Module):
    # stand-in for the recurrent sLSTM cell: same input/output layout, no time loop
    def __init__(self, config: sLSTMBlockConfig):
        super().__init__()
        self.config = config

    def forward(self, input: torch.Tensor, state=None):
        x = input.view(input.shape[0], input.shape[1], self.config.num_gates, self.config.num_heads, -1)
        i, f, z, o = x.unbind(2)
        h = torch.sigmoid(o) * torch.tanh(z) * torch.sigmoid(i - f)  # (B, S, NH, DH)
        return h.permute(0, 2, 1, 3), state  # (B, NH, S, DH)


class sLSTMLayer(nn.Module):
    def __init__(self, config: sLSTMBlockConfig):
        super().__init__()
        self.config = config

        in_features, num_heads = self.config.embedding_dim, self.config.num_heads
        self.fgate = LinearHeadwiseExpand(in_features, num_heads)
        self.igate = LinearHeadwiseExpand(in_features, num_heads)
        self.zgate = LinearHeadwiseExpand(in_features, num_heads)
        self.ogate = LinearHeadwiseExpand(in_features, num_heads)

        self.slstm_cell = sLSTMCellStandIn(self.config)
        self.group_norm = MultiHeadLayerNorm(ndim=in_features)

    def forward(self, x: torch.Tensor, slstm_state=None) -> torch.Tensor:
        x_g = torch.cat((self.fgate(x), self.igate(x), self.zgate(x), self.ogate(x)), dim=-1)

        y, slstm_state = self.slstm_cell(x_g, state=slstm_state)

        return self.group_norm(y).transpose(1, 2).view(x.shape[0], x.shape[1], -1)


class LinearHeadwiseExpand(nn.Module):
    def __init__(self, in_features, num_heads, expand_factor_up: float = 1):
        super().__init__()
        self.num_heads = num_heads
        out_features = round(expand_factor_up * in_features)
        out_features_per_head = out_features // num_heads
        self.weight = nn.Parameter(torch.randn(num_heads, out_features_per_head, in_features // num_heads) * 0.2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shape = x.shape
        x = x.view(*shape[:-1], self.num_heads, -1)
        x = torch.einsum("...hd,hod->...ho", x, self.weight)
        x = x.reshape(*shape[:-1], -1)
        return x


class MultiHeadLayerNorm(nn.Module):
    def __init__(self, ndim: int):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(ndim))

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        assert input.dim() == 4, "Input must be 4D tensor (B, NH, S, DH)"
        B, NH, S, DH = input.shape

        gn_in_1 = input.transpose(1, 2)  # (B, S, NH, DH)
        gn_in_2 = gn_in_1.reshape(B * S, NH * DH)  # (B * S, NH * DH)
        residual_weight = 1.0 + self.weight
        out = F.group_norm(gn_in_2, num_groups=NH, weight=residual_weight)
        # (B * S), (NH * DH) -> (B, S, NH, DH) -> (B, NH, S, DH)
        out = out.view(B, S, NH, DH).transpose(1, 2)
        return out


def make_model():
    return sLSTMLayer(sLSTMBlockConfig(embedding_dim=32, num_heads=4))


def example_inputs():
    return (torch.randn(2, 16, 32),)


def other_inputs():
    return [(torch.randn(3, 24, 32),), (torch.randn(1, 7, 32),)]


def probe_inputs():
    return other_inputs()

"""icefall's LSTM transducer encoder stacks `nn.LSTM(..., proj_size=...)` layers (LSTM with
projection) over subsampled fbank frames; the PR says PyTorch cannot export LSTM with projection
to ONNX and works around it by re-implementing it as a Python LSTMP before export.

Source: https://github.com/k2-fsa/icefall/pull/621
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "frames"}}
BLIND = "operators-3"


class RNNEncoderLayer(nn.Module):
    def __init__(self, d_model: int, dim_feedforward: int, dropout: float = 0.1):
        super().__init__()
        self.lstm = nn.LSTM(
            input_size=d_model,
            hidden_size=dim_feedforward,
            proj_size=d_model,
            num_layers=1,
            dropout=0.0,
        )
        self.norm_final = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, src: torch.Tensor) -> torch.Tensor:
        # src: (T, N, C)
        src_lstm = self.lstm(src)[0]
        src = src + self.dropout(src_lstm)
        return self.norm_final(src)


class RNNEncoder(nn.Module):
    def __init__(self, num_features=80, d_model=64, dim_feedforward=128, num_layers=2):
        super().__init__()
        self.encoder_embed = nn.Linear(num_features, d_model)
        self.layers = nn.ModuleList(
            [RNNEncoderLayer(d_model, dim_feedforward) for _ in range(num_layers)]
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (N, T, C) fbank features
        x = self.encoder_embed(x)
        x = x.permute(1, 0, 2)  # (N, T, C) -> (T, N, C)
        for layer in self.layers:
            x = layer(x)
        return x.permute(1, 0, 2)


def make_model():
    return RNNEncoder().eval()


def example_inputs():
    return (torch.randn(2, 50, 80),)


def other_inputs():
    return [(torch.randn(3, 37, 80),), (torch.randn(1, 64, 80),)]


def probe_inputs():
    return other_inputs()

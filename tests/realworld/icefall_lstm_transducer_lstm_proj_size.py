"""icefall lstm_transducer_stateless2 (streaming ASR) RNN encoder: each encoder layer runs an LSTM with a
projection (`proj_size=d_model`, hidden size larger than d_model); exporting the encoder to ONNX for
onnxruntime fails because ONNX's LSTM has no projection (the maintainer: "we are using LSTM with projection.
However, onnx does not support LSTM with projections").

Source: https://github.com/k2-fsa/sherpa/issues/136
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "frames"}}
BLIND = "operators-17"


class BasicNorm(nn.Module):
    def __init__(self, num_channels: int, channel_dim: int = -1, eps: float = 0.25) -> None:
        super().__init__()
        self.channel_dim = channel_dim
        self.eps = nn.Parameter(torch.tensor(eps).log().detach())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scales = (torch.mean(x ** 2, dim=self.channel_dim, keepdim=True) + self.eps.exp()) ** -0.5
        return x * scales


class RNNEncoderLayer(nn.Module):
    def __init__(self, d_model: int, dim_feedforward: int, rnn_hidden_size: int, dropout: float = 0.1) -> None:
        super().__init__()
        self.d_model = d_model
        self.rnn_hidden_size = rnn_hidden_size
        assert rnn_hidden_size >= d_model, (rnn_hidden_size, d_model)
        self.lstm = nn.LSTM(
            input_size=d_model,
            hidden_size=rnn_hidden_size,
            proj_size=d_model if rnn_hidden_size > d_model else 0,
            num_layers=1,
            dropout=0.0,
        )
        self.feed_forward = nn.Sequential(
            nn.Linear(d_model, dim_feedforward),
            nn.SiLU(),
            nn.Dropout(dropout),
            nn.Linear(dim_feedforward, d_model),
        )
        self.norm_final = BasicNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, src: torch.Tensor) -> torch.Tensor:
        # lstm module
        src_lstm = self.lstm(src)[0]
        src = src + self.dropout(src_lstm)
        # feed forward module
        src = src + self.dropout(self.feed_forward(src))
        return self.norm_final(src)


class RNN(nn.Module):
    def __init__(self, num_features=80, d_model=64, dim_feedforward=128, rnn_hidden_size=96, num_encoder_layers=2):
        super().__init__()
        self.encoder_embed = nn.Linear(num_features, d_model)  # stand-in for Conv2dSubsampling
        self.layers = nn.ModuleList(
            [RNNEncoderLayer(d_model, dim_feedforward, rnn_hidden_size) for _ in range(num_encoder_layers)]
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.encoder_embed(x)
        x = x.permute(1, 0, 2)  # (N, T, C) -> (T, N, C)
        for mod in self.layers:
            x = mod(x)
        x = x.permute(1, 0, 2)  # (T, N, C) -> (N, T, C)
        return x


def make_model():
    return RNN().eval()


def example_inputs():
    return (torch.randn(2, 30, 80),)


def other_inputs():
    return [(torch.randn(3, 45, 80),), (torch.randn(1, 17, 80),)]


def probe_inputs():
    return other_inputs()

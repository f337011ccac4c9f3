"""SCNet music-source-separation network: its SeparationNet alternates dual-path LSTMs with
FeatureConversion layers that call torch.fft.rfft along time (splitting .real/.imag into channels) and
then rebuild torch.complex(...) for torch.fft.irfft. Exporting SCNet fails on these in-model FFTs
(aten._fft_r2c is not supported; the reporter could move the STFT out but not these).

Source: https://github.com/pytorch/executorch/issues/5381
"""
import torch
import torch.nn as nn
from torch.nn.modules.rnn import LSTM

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 3: "frames"}}
BLIND = "operators-37"


class FeatureConversion(nn.Module):
    def __init__(self, channels, inverse):
        super().__init__()
        self.inverse = inverse
        self.channels = channels

    def forward(self, x):
        # B, C, F, T = x.shape
        if self.inverse:
            x = x.float()
            x_r = x[:, :self.channels//2, :, :]
            x_i = x[:, self.channels//2:, :, :]
            x = torch.complex(x_r, x_i)
            x = torch.fft.irfft(x, dim=3, norm="ortho")
        else:
            x = x.float()
            x = torch.fft.rfft(x, dim=3, norm="ortho")
            x_real = x.real
            x_imag = x.imag
            x = torch.cat([x_real, x_imag], dim=1)
        return x


class DualPathRNN(nn.Module):
    def __init__(self, d_model, expand, bidirectional=True):
        super(DualPathRNN, self).__init__()
        self.d_model = d_model
        self.hidden_size = d_model * expand
        self.bidirectional = bidirectional
        self.lstm_layers = nn.ModuleList([self._init_lstm_layer(self.d_model, self.hidden_size) for _ in range(2)])
        self.linear_layers = nn.ModuleList([nn.Linear(self.hidden_size*2, self.d_model) for _ in range(2)])
        self.norm_layers = nn.ModuleList([nn.GroupNorm(1, d_model) for _ in range(2)])

    def _init_lstm_layer(self, d_model, hidden_size):
        return LSTM(d_model, hidden_size, num_layers=1, bidirectional=self.bidirectional, batch_first=True)

    def forward(self, x):
        B, C, F, T = x.shape
        original_x = x
        x = self.norm_layers[0](x)
        x = x.transpose(1, 3).contiguous().view(B * T, F, C)
        x, _ = self.lstm_layers[0](x)
        x = self.linear_layers[0](x)
        x = x.view(B, T, F, C).transpose(1, 3)
        x = x + original_x

        original_x = x
        x = self.norm_layers[1](x)
        x = x.transpose(1, 2).contiguous().view(B * F, C, T).transpose(1, 2)
        x, _ = self.lstm_layers[1](x)
        x = self.linear_layers[1](x)
        x = x.transpose(1, 2).contiguous().view(B, F, C, T).transpose(1, 2)
        x = x + original_x
        return x


class SeparationNet(nn.Module):
    def __init__(self, channels, expand=1, num_layers=6):
        super(SeparationNet, self).__init__()
        self.num_layers = num_layers
        self.dp_modules = nn.ModuleList([
                DualPathRNN(channels * (2 if i % 2 == 1 else 1), expand) for i in range(num_layers)
        ])
        self.feature_conversion = nn.ModuleList([
            FeatureConversion(channels * 2, inverse=False if i % 2 == 0 else True) for i in range(num_layers)
        ])

    def forward(self, x):
        for i in range(self.num_layers):
            x = self.dp_modules[i](x)
            x = self.feature_conversion[i](x)
        return x


def make_model():
    return SeparationNet(channels=4, expand=1, num_layers=2).eval()


def example_inputs():
    # SCNet pads the waveform so the STFT frame count T is even before this network.
    return (torch.randn(2, 4, 6, 16),)


def other_inputs():
    return [(torch.randn(3, 4, 6, 20),), (torch.randn(1, 4, 6, 12),)]


def probe_inputs():
    return other_inputs()

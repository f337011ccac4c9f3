"""Vocos mel vocoder (charactr/vocos-mel-24khz) exported as backbone + ISTFTHead: the head splits the
linear output into log-magnitude and phase, builds a complex64 spectrogram `mag * (x + 1j * y)` and
runs `torch.istft(..., center=True)` on it. The project's export script says the legacy exporter
fails with "Unknown number type: complex", the dynamo exporter cannot translate the complex ops
(and its iSTFT graph carries int32 ScatterND indices that onnxruntime rejects), so it swaps the head
for a real-valued IDFT + fold re-implementation before export.

Source: https://github.com/jklof/anode/blob/main/tools/export_vocos_onnx.py
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"mel": {0: "batch", 2: "frames"}}
BLIND = "operators-61"


class ConvNeXtBlock(nn.Module):
    def __init__(self, dim, intermediate_dim, layer_scale_init_value):
        super().__init__()
        self.dwconv = nn.Conv1d(dim, dim, kernel_size=7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, intermediate_dim)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(intermediate_dim, dim)
        self.gamma = nn.Parameter(layer_scale_init_value * torch.ones(dim), requires_grad=True)

    def forward(self, x):
        residual = x
        x = self.dwconv(x)
        x = x.transpose(1, 2)  # (B, C, T) -> (B, T, C)
        x = self.norm(x)
        x = self.pwconv2(self.act(self.pwconv1(x)))
        x = self.gamma * x
        x = x.transpose(1, 2)
        return residual + x


class VocosBackbone(nn.Module):
    def __init__(self, input_channels=100, dim=64, intermediate_dim=192, num_layers=2):
        super().__init__()
        self.embed = nn.Conv1d(input_channels, dim, kernel_size=7, padding=3)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.convnext = nn.ModuleList([ConvNeXtBlock(dim, intermediate_dim, 1 / num_layers) for _ in range(num_layers)])
        self.final_layer_norm = nn.LayerNorm(dim, eps=1e-6)

    def forward(self, x):
        x = self.embed(x)
        x = self.norm(x.transpose(1, 2)).transpose(1, 2)
        for conv_block in self.convnext:
            x = conv_block(x)
        return self.final_layer_norm(x.transpose(1, 2))


class ISTFT(nn.Module):
    def __init__(self, n_fft, hop_length, win_length, padding="same"):
        super().__init__()
        self.padding = padding
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.win_length = win_length
        window = torch.hann_window(win_length)
        self.register_buffer("window", window)

    def forward(self, spec):
        if self.padding == "center":
            # Fallback to pytorch native implementation
            return torch.istft(spec, self.n_fft, self.hop_length, self.win_length, self.window, center=True)
        raise ValueError("Padding must be 'center' or 'same'.")


class ISTFTHead(nn.Module):
    def __init__(self, dim, n_fft, hop_length, padding="same"):
        super().__init__()
        out_dim = n_fft + 2
        self.out = torch.nn.Linear(dim, out_dim)
        self.istft = ISTFT(n_fft=n_fft, hop_length=hop_length, win_length=n_fft, padding=padding)

    def forward(self, x):
        x = self.out(x).transpose(1, 2)
        mag, p = x.chunk(2, dim=1)
        mag = torch.exp(mag)
        mag = torch.clip(mag, max=1e2)  # safeguard to prevent excessively large magnitudes
        x = torch.cos(p)
        y = torch.sin(p)
        S = mag * (x + 1j * y)
        audio = self.istft(S)
        return audio


class VocosWrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = VocosBackbone()
        self.head = ISTFTHead(dim=64, n_fft=256, hop_length=64, padding="center")

    def forward(self, mel):
        # Bypass Vocos.decode() (@torch.inference_mode)
        return self.head(self.backbone(mel))


def make_model():
    return VocosWrapper().eval()


def example_inputs():
    return (torch.randn(2, 100, 24),)


def other_inputs():
    return [(torch.randn(3, 100, 31),), (torch.randn(1, 100, 12),)]


def probe_inputs():
    return other_inputs()

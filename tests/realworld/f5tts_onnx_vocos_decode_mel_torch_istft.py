"""F5-TTS export (DakeQQ/F5-TTS-ONNX): the Vocos vocoder that decodes the mel spectrogram ends in ISTFTHead,
which (padding="center") falls back to `torch.istft` on the complex spectrum built from magnitude and phase.
The maintainer answers that `torch.istft` cannot be exported to ONNX / run in onnxruntime, so the export
skips Vocos' own post-processing and swaps in a hand-written iSTFT.

Source: https://github.com/DakeQQ/F5-TTS-ONNX/issues/6
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"mel": {0: "batch", 2: "frames"}}
BLIND = "operators-18"


class ConvNeXtBlock(nn.Module):
    def __init__(self, dim: int, intermediate_dim: int, layer_scale_init_value: float):
        super().__init__()
        self.dwconv = nn.Conv1d(dim, dim, kernel_size=7, padding=3, groups=dim)  # depthwise conv
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, intermediate_dim)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(intermediate_dim, dim)
        self.gamma = nn.Parameter(layer_scale_init_value * torch.ones(dim), requires_grad=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        residual = x
        x = self.dwconv(x)
        x = x.transpose(1, 2)  # (B, C, T) -> (B, T, C)
        x = self.norm(x)
        x = self.pwconv1(x)
        x = self.act(x)
        x = self.pwconv2(x)
        x = self.gamma * x
        x = x.transpose(1, 2)  # (B, T, C) -> (B, C, T)
        return residual + x


class VocosBackbone(nn.Module):
    def __init__(self, input_channels: int, dim: int, intermediate_dim: int, num_layers: int):
        super().__init__()
        self.embed = nn.Conv1d(input_channels, dim, kernel_size=7, padding=3)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        layer_scale_init_value = 1 / num_layers
        self.convnext = nn.ModuleList(
            [ConvNeXtBlock(dim, intermediate_dim, layer_scale_init_value) for _ in range(num_layers)])
        self.final_layer_norm = nn.LayerNorm(dim, eps=1e-6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.embed(x)
        x = self.norm(x.transpose(1, 2))
        x = x.transpose(1, 2)
        for conv_block in self.convnext:
            x = conv_block(x)
        x = self.final_layer_norm(x.transpose(1, 2))
        return x


class ISTFT(nn.Module):
    def __init__(self, n_fft: int, hop_length: int, win_length: int, padding: str = "same"):
        super().__init__()
        self.padding = padding
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.win_length = win_length
        window = torch.hann_window(win_length)
        self.register_buffer("window", window)

    def forward(self, spec: torch.Tensor) -> torch.Tensor:
        if self.padding == "center":
            # Fallback to pytorch native implementation
            return torch.istft(spec, self.n_fft, self.hop_length, self.win_length, self.window, center=True)
        raise NotImplementedError


class ISTFTHead(nn.Module):
    def __init__(self, dim: int, n_fft: int, hop_length: int, padding: str = "same"):
        super().__init__()
        out_dim = n_fft + 2
        self.out = torch.nn.Linear(dim, out_dim)
        self.istft = ISTFT(n_fft=n_fft, hop_length=hop_length, win_length=n_fft, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.out(x).transpose(1, 2)
        mag, p = x.chunk(2, dim=1)
        mag = torch.exp(mag)
        mag = torch.clip(mag, max=1e2)  # safeguard to prevent excessively large magnitudes
        x = torch.cos(p)
        y = torch.sin(p)
        S = mag * (x + 1j * y)
        audio = self.istft(S)
        return audio


class Vocos(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = VocosBackbone(input_channels=24, dim=32, intermediate_dim=64, num_layers=2)
        self.head = ISTFTHead(dim=32, n_fft=64, hop_length=16, padding="center")

    def forward(self, mel: torch.Tensor) -> torch.Tensor:  # Vocos.decode
        x = self.backbone(mel)
        audio_output = self.head(x)
        return audio_output


def make_model():
    return Vocos().eval()


def example_inputs():
    return (torch.randn(1, 24, 40),)


def other_inputs():
    return [(torch.randn(2, 24, 57),), (torch.randn(3, 24, 23),)]


def probe_inputs():
    return other_inputs()

"""ChatTTS's Vocos vocoder: the ISTFTHead projects backbone features to magnitude and phase, builds the complex
spectrum `S = mag * (x + 1j * y)` and turns it into audio with `torch.istft(..., center=True)` (padding="center").
The ONNX export script added in this commit cannot export `chat.vocos.decode`: it stops after `mag, cos(p), sin(p)`
with the note "cannot support the istft OP, thus it has to be moved to postprocessing". The case is the vocoder
decode the script had to cut short (backbone trimmed to an embedding conv and one ConvNeXt block).

Source: https://github.com/2noise/ChatTTS/commit/b98eb52c7db830ad19a78909af617c6decdbd6f4
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"mel": {0: "batch", 2: "frames"}}
BLIND = "operators-47"


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
        raise NotImplementedError("only center padding is kept here")


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
        # wrapping happens here. These two lines produce real and imaginary value
        x = torch.cos(p)
        y = torch.sin(p)
        S = mag * (x + 1j * y)
        audio = self.istft(S)
        return audio


class ConvNeXtBlock(nn.Module):
    def __init__(self, dim: int, intermediate_dim: int):
        super().__init__()
        self.dwconv = nn.Conv1d(dim, dim, kernel_size=7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, intermediate_dim)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(intermediate_dim, dim)
        self.gamma = nn.Parameter(0.1 * torch.ones(dim))

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


class Vocos(nn.Module):
    def __init__(self, n_mels=20, dim=32, n_fft=64, hop_length=16):
        super().__init__()
        self.embed = nn.Conv1d(n_mels, dim, kernel_size=7, padding=3)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.block = ConvNeXtBlock(dim, dim * 3)
        self.final_layer_norm = nn.LayerNorm(dim, eps=1e-6)
        self.head = ISTFTHead(dim, n_fft, hop_length, padding="center")

    def backbone(self, x: torch.Tensor) -> torch.Tensor:
        x = self.embed(x)
        x = self.norm(x.transpose(1, 2)).transpose(1, 2)
        x = self.block(x)
        return self.final_layer_norm(x.transpose(1, 2))

    def forward(self, mel: torch.Tensor) -> torch.Tensor:
        # chat.vocos.decode(mel)
        return self.head(self.backbone(mel))


def make_model():
    return Vocos().eval()


def example_inputs():
    return (torch.randn(2, 20, 40),)


def other_inputs():
    return [(torch.randn(3, 20, 57),), (torch.randn(1, 20, 24),)]


def probe_inputs():
    return other_inputs()

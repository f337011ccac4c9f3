"""Image-forensics VIBNet frequency branch: `FrequencyBranch` turns the image to gray and runs `DFT2D` in its
training mode `"torch"`: `torch.fft.fft2(x, dim=(-2, -1), norm="ortho")`, `torch.fft.fftshift(spec, dim=(-2, -1))`,
then amplitude `sqrt(real**2 + imag**2)` and phase `atan2(imag, real)`, masked by a learnable frequency mask and fed
to two small CNNs. The repo's dft.py explains that `torch.onnx.export(..., opset_version=17)` of this path fails with
"UnsupportedOperatorError: Exporting the operator 'aten::fft_fft2' to ONNX opset version 17 is not supported", and
adds a matmul DFT mode to switch to before export; this case is the model as trained, in "torch" mode.
Channels and image size are reduced.

Source: https://github.com/dabaoy244/tuxiang11/blob/c5c5e5cf928ee277b15a4f8daa296fc97d9eb3c6/src/models/dft.py
"""
from typing import List, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-61"


class DFT2D(nn.Module):
    def __init__(self, height: int = 224, width: int = 224, mode: str = "torch",
                 shift: bool = True, ortho: bool = True):
        super().__init__()
        assert mode in ("torch", "matmul")
        self.mode = mode
        self.height, self.width = height, width
        self.shift, self.ortho = shift, ortho

    def _fft_shift_torch(self, spec: torch.Tensor) -> torch.Tensor:
        if not self.shift:
            return spec
        return torch.fft.fftshift(spec, dim=(-2, -1))

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        spec = torch.fft.fft2(x, dim=(-2, -1), norm="ortho" if self.ortho else "backward")
        spec = self._fft_shift_torch(spec)
        real, imag = spec.real, spec.imag

        amp = torch.sqrt(real ** 2 + imag ** 2 + 1e-12)
        phase = torch.atan2(imag, real)                     # (-pi, pi]
        return amp, phase


class LearnableFrequencyMask(nn.Module):
    def __init__(self, hidden: int = 32, kernel: int = 5):
        super().__init__()
        pad = kernel // 2
        self.conv1 = nn.Conv2d(1, hidden, kernel, 1, pad)
        self.bn1 = nn.BatchNorm2d(hidden)
        self.conv2 = nn.Conv2d(hidden, 1, kernel, 1, pad)
        self.act = nn.ReLU(inplace=True)

    def forward(self, log_amp: torch.Tensor) -> torch.Tensor:
        m = self.conv2(self.act(self.bn1(self.conv1(log_amp))))
        return torch.sigmoid(m)


class FreqPathNet(nn.Module):
    def __init__(self, in_ch: int = 1, channels: List[int] = (32, 128), out_hw: int = 14):
        super().__init__()
        chs = [in_ch] + list(channels)
        layers = []
        for i in range(len(channels)):
            layers += [
                nn.Conv2d(chs[i], chs[i + 1], 3, 1, 1, bias=False),
                nn.BatchNorm2d(chs[i + 1]),
                nn.ReLU(inplace=True),
            ]
        self.conv = nn.Sequential(*layers)
        self.out_hw = out_hw

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f = self.conv(x)
        return F.adaptive_avg_pool2d(f, self.out_hw)


class FrequencyBranch(nn.Module):
    def __init__(self, cfg: dict):
        super().__init__()
        f = cfg["model"]["freq"]
        self.use_phase = f.get("use_phase", True)
        hidden = f.get("mask_hidden", 32)
        kernel = f.get("mask_kernel", 5)
        chs = f.get("feat_channels", [32, 128])

        size = cfg["data"].get("image_size", 224)
        self.dft = DFT2D(size, size, mode=f.get("dft_mode", "torch"))

        self.mask_net = LearnableFrequencyMask(hidden, kernel)
        self.amp_net = FreqPathNet(1, chs, out_hw=14)
        self.phase_net = FreqPathNet(1, chs, out_hw=14)

    def to_amp_phase(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        gray = x.mean(dim=1, keepdim=True)
        return self.dft(gray)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        amp, phase = self.to_amp_phase(x)
        log_amp = torch.log1p(amp)
        mask = self.mask_net(log_amp)
        amp_enh = amp * mask
        amp_map = self.amp_net(amp_enh)

        phase_enh = phase * mask
        phase_map = self.phase_net(phase_enh)
        f_freq = torch.cat([amp_map, phase_map], dim=1)
        return f_freq


CFG = {
    "data": {"image_size": 56},
    "model": {"freq": {"use_phase": True, "mask_hidden": 8, "mask_kernel": 5,
                       "feat_channels": [8, 16], "dft_mode": "torch"}},
}


def make_model():
    return FrequencyBranch(CFG).eval()


def example_inputs():
    return (torch.rand(2, 3, 56, 56),)


def other_inputs():
    return [(torch.rand(3, 3, 56, 56),), (torch.rand(1, 3, 56, 56),)]


def probe_inputs():
    return other_inputs()

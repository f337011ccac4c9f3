"""Dual-stream deepfake detector, frequency stream: `FFTFrequencyExtractor` turns the face crop to gray, takes
`torch.fft.rfft2(gray, norm="ortho")`, and feeds a 2-channel map of the normalised log-magnitude (`torch.abs`) and the
phase (`torch.angle(fft_2d) / torch.pi`, both `fftshift`-ed on dim -2) to a conv net. The repo exports with
torch.onnx.export(opset 14, dynamic batch), and its latency benchmark wraps that export in try/except, noting that
"Complex 2D FFT ops aten::fft_rfft2 require PyTorch 2.x Dynamo exporter". The timm ConvNeXt spatial stream and the
cross-attention fusion are left out; the frequency grid is mean-pooled into the classifier.

Source: https://github.com/yyouretoast/deepfake-detection/blob/45d063662d825e062edf75e6c32ea832760a14c9/src/models/hybrid_detector.py
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.fft

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch_size"}}
BLIND = "operators-61"


class FFTFrequencyExtractor(nn.Module):
    def __init__(self, out_features: int = 128) -> None:
        super().__init__()
        self.out_features = out_features

        self.rgb_to_gray = nn.Conv2d(3, 1, kernel_size=1, bias=False)
        with torch.no_grad():
            self.rgb_to_gray.weight.data = torch.tensor([[[[0.299]], [[0.587]], [[0.114]]]], dtype=torch.float32)
        self.rgb_to_gray.weight.requires_grad = False

        self.conv_net = nn.Sequential(
            nn.Conv2d(2, 32, kernel_size=3, stride=2, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(inplace=True),
            nn.Conv2d(32, out_features, kernel_size=3, stride=2, padding=1),
            nn.BatchNorm2d(out_features),
            nn.ReLU(inplace=True)
        )

        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def _extract_norm_spectrum(self, x: torch.Tensor) -> torch.Tensor:
        with torch.amp.autocast(device_type=x.device.type, enabled=False):
            x_fp32 = x.to(torch.float32)
            raw_x = (x_fp32 * self.std + self.mean).clamp(0.0, 1.0)
            gray = self.rgb_to_gray(raw_x)
            fft_2d = torch.fft.rfft2(gray, norm="ortho")
            magnitude = torch.abs(fft_2d)
            log_spectrum = torch.log(magnitude + 1e-5)
            log_spectrum = torch.fft.fftshift(log_spectrum, dim=-2)
            mean = log_spectrum.mean(dim=(-2, -1), keepdim=True)
            std = log_spectrum.std(dim=(-2, -1), keepdim=True)
            norm_magnitude = (log_spectrum - mean) / (std + 1e-6)

            # Channel 1: Normalized Phase Angle [-1.0, +1.0]
            phase_angle = torch.angle(fft_2d) / torch.pi
            phase_angle = torch.fft.fftshift(phase_angle, dim=-2)

            two_channel_spectrum = torch.cat([norm_magnitude, phase_angle], dim=1)
        return self.conv_net(two_channel_spectrum.to(x.dtype))

    def forward_grid(self, x: torch.Tensor, target_h: int = 8, target_w: int = 8) -> torch.Tensor:
        conv_features = self._extract_norm_spectrum(x)
        return F.adaptive_avg_pool2d(conv_features, (target_h, target_w))


class FrequencyStreamDetector(nn.Module):
    def __init__(self, freq_embed_dim: int = 128, dropout: float = 0.3) -> None:
        super().__init__()
        self.freq_extractor = FFTFrequencyExtractor(out_features=freq_embed_dim)
        self.classifier = nn.Sequential(
            nn.Linear(freq_embed_dim, 256),
            nn.LayerNorm(256),
            nn.ReLU(inplace=True),
            nn.Dropout(dropout),
            nn.Linear(256, 1)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        freq_grid = self.freq_extractor.forward_grid(x, target_h=8, target_w=8)
        B = freq_grid.shape[0]
        freq_tokens = freq_grid.view(B, freq_grid.shape[1], 8 * 8).transpose(1, 2)
        freq_raw = freq_tokens.mean(dim=1)
        logits = self.classifier(freq_raw)
        return logits.view(-1)


def make_model():
    return FrequencyStreamDetector().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 64, 64),), (torch.randn(1, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()

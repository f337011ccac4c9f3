"""An audio classifier frames the waveform with `x.unfold(-1, frame_size, hop)`, takes the magnitude of a 2-D
real FFT over (frames, samples) with `fft.rfft2(frames).abs()` and feeds it to a linear layer. litert-torch
(ai-edge-torch) conversion fails: `aten._fft_r2c` has no lowering ("RFFT2 Lowering Missing"); the legacy
ONNX exporter has no symbolic for `aten::fft_rfft2` either.

Source: https://github.com/google-ai-edge/litert-torch/issues/1034
"""
import torch
from torch import fft, nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-53"


class FrameSpectrumClassifier(nn.Module):
    def __init__(self, frame_size=512, hop=384, frame_count=374, num_classes=8):
        super().__init__()
        self.frame_size = frame_size
        self.hop = hop
        self.fc = nn.Linear(frame_count * (frame_size // 2 + 1), num_classes)

    def forward(self, x):
        frames = x.unfold(-1, self.frame_size, self.hop)
        spec = fft.rfft2(frames).abs()
        return self.fc(spec.flatten(start_dim=1))


def make_model():
    return FrameSpectrumClassifier().eval()


_LEN = 384 * (374 - 1) + 512  # hop=384, frame_count=374, frame_size=512


def example_inputs():
    return (torch.randn(2, _LEN),)


def other_inputs():
    return [(torch.randn(3, _LEN),), (torch.randn(1, _LEN),)]


def probe_inputs():
    return other_inputs()

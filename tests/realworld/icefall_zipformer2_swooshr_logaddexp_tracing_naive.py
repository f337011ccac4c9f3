"""Zipformer2 Conv2dSubsampling (icefall): every SwooshR computes `logaddexp(zero, x - 1.)`, and because
torch.logaddexp did not export to ONNX the helper switches, when `torch.jit.is_tracing()`, to the naive
`(x.exp() + y.exp()).log()`. The reporter's traced ONNX export then produced inf from the last SwooshR of
`Subsampling.conv` (exp overflows float32 for large activations).

Source: https://github.com/k2-fsa/icefall/pull/1157
"""
import torch
import torch.nn as nn
from torch import Tensor

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "time"}}
BLIND = "operators-12"


# RuntimeError: Exporting the operator logaddexp to ONNX opset version
# 14 is not supported. Please feel free to request support or submit
# a pull request on PyTorch GitHub.
#
# The following function is to solve the above error when exporting
# models to ONNX via torch.jit.trace()
def logaddexp(x: Tensor, y: Tensor) -> Tensor:
    if not torch.jit.is_tracing():
        return torch.logaddexp(x, y)
    else:
        return (x.exp() + y.exp()).log()


class SwooshR(torch.nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        """Return Swoosh-R activation.
        """
        # (the non-traced branch calls k2.swoosh_r_forward(x), the same function as a fused kernel)
        zero = torch.tensor(0.0, dtype=x.dtype, device=x.device)
        return logaddexp(zero, x - 1.) - 0.08 * x - 0.313261687


class Conv2dSubsampling(nn.Module):
    def __init__(self, in_channels: int = 80, out_channels: int = 192, layer1_channels: int = 8,
                 layer2_channels: int = 32, layer3_channels: int = 128) -> None:
        assert in_channels >= 7
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(in_channels=1, out_channels=layer1_channels, kernel_size=3, padding=(0, 1)),
            SwooshR(),
            nn.Conv2d(in_channels=layer1_channels, out_channels=layer2_channels, kernel_size=3,
                      stride=2, padding=0),
            SwooshR(),
            nn.Conv2d(in_channels=layer2_channels, out_channels=layer3_channels, kernel_size=3,
                      stride=(1, 2)),
            SwooshR(),
        )
        self.out_width = (((in_channels - 1) // 2) - 1) // 2
        self.layer3_channels = layer3_channels
        self.out = nn.Linear(self.out_width * layer3_channels, out_channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # On entry, x is (N, T, idim)
        x = x.unsqueeze(1)  # (N, T, idim) -> (N, 1, T, idim) i.e., (N, C, H, W)
        x = self.conv(x)
        b, c, t, f = x.size()
        x = x.transpose(1, 2).reshape(b, t, c * f)
        x = self.out(x)
        return x


def make_model():
    torch.manual_seed(0)
    return Conv2dSubsampling()


def _fbank(n, t):
    # unnormalised log-mel features of loud recordings: large magnitudes reach the last SwooshR
    return torch.randn(n, t, 80) * 60.0


def example_inputs():
    return (_fbank(1, 100),)


def other_inputs():
    return [(_fbank(2, 73),), (_fbank(3, 131),)]


def probe_inputs():
    return other_inputs()

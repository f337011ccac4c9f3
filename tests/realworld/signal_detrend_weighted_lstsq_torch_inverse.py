"""Signal front-end that removes a slow baseline by a weighted least-squares polynomial fit: a small conv
predicts per-sample weights and the fit solves the normal equations with `torch.inverse(A) @ b` per
batch item and channel. The report (a request to bring the Inverse operator back into ONNX) says a
PyTorch model using `torch.inverse` cannot be exported to ONNX because of that one operation.
(The report gives no model code; the detrending layer is where signal models call torch.inverse.)

Source: https://github.com/onnx/onnx/issues/3300
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-16"


class WeightedPolyDetrend(nn.Module):
    def __init__(self, channels=3, length=256, degree=3):
        super().__init__()
        self.weight_net = nn.Sequential(
            nn.Conv1d(channels, 16, 9, padding=4), nn.ReLU(),
            nn.Conv1d(16, channels, 9, padding=4),
        )
        t = torch.linspace(-1.0, 1.0, length)
        self.register_buffer("basis", torch.stack([t ** k for k in range(degree + 1)], dim=-1))  # (T, K)
        self.head = nn.Conv1d(channels, 8, 5, padding=2)

    def forward(self, x):                                    # x: (B, C, T)
        w = torch.sigmoid(self.weight_net(x))                # confidence of each sample
        V = self.basis
        Vw = V.unsqueeze(0).unsqueeze(0) * w.unsqueeze(-1)   # (B, C, T, K)
        A = Vw.transpose(-1, -2) @ V                         # (B, C, K, K)  V^T W V
        b = Vw.transpose(-1, -2) @ x.unsqueeze(-1)           # (B, C, K, 1)  V^T W x
        coef = torch.inverse(A) @ b
        baseline = (V @ coef).squeeze(-1)                    # (B, C, T)
        return self.head(x - baseline)


def _signal(n):
    t = torch.linspace(0, 1, 256)
    drift = 2.0 * t ** 2 - t
    return torch.randn(n, 3, 256) * 0.3 + torch.sin(40 * t) + drift


def make_model():
    return WeightedPolyDetrend().eval()


def example_inputs():
    return (_signal(2),)


def other_inputs():
    return [(_signal(5),), (_signal(1),)]


def probe_inputs():
    return other_inputs()

"""ONX203 with ONX503: a depth map normalized between its 5th and 95th percentiles, taken with
torch.kthvalue at ranks computed from the pixel count (`max(1, int(0.05 * n))`, OpenVINO's depth
post-processing). Neither exporter translates kthvalue; ONX503's helper compares ranks with `k - 1`,
so the legacy form of the rank (`_onnx_sym_int`, a 0-d tensor while the legacy exporter traces,
through ONX403's max() of sizes) keeps it live: without it the legacy export fixes the export-time
ranks (silently wrong on other image sizes)."""
import torch
from torch import nn


class RobustNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Conv2d(3, 1, 3, padding=1)

    def forward(self, image):
        depth = self.body(image)
        flat = depth.flatten(1)
        n = flat.shape[1]
        lo = torch.kthvalue(flat, max(1, int(0.05 * n)), dim=1, keepdim=True).values
        hi = flat.kthvalue(int(0.95 * n), 1, True).values
        return ((flat - lo) / (hi - lo + 1e-6)).clamp(0.0, 1.0).view_as(depth)


def make_model():
    torch.manual_seed(0)
    return RobustNorm()


def example_inputs():
    return (torch.randn(2, 3, 8, 10),)


def probe_inputs():
    return [(torch.randn(1, 3, 12, 6),), (torch.randn(3, 3, 5, 7),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}

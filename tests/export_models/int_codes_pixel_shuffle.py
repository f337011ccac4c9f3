"""Integer codes moved between space and depth: a label map folded into channels with
`F.pixel_unshuffle` (ONNX SpaceToDepth) and a quantized head's int32 codes unfolded with
`torch.pixel_shuffle` (DepthToSpace). onnxruntime's CPU provider has float kernels only for both
("Could not find an implementation for DepthToSpace(13)"; int64 has none either). float32_compute,
named by that error, moves them as torch defines the ops, a reshape, a permutation and a reshape,
while exporting: the same integers."""
import torch
import torch.nn.functional as F
from torch import nn


class IntegerCodes(nn.Module):
    def __init__(self, classes=5, upscale=2):
        super().__init__()
        self.embed = nn.Embedding(classes, 3)
        self.conv = nn.Conv2d(3 * upscale * upscale, 2 * upscale * upscale, 3, padding=1)
        self.upscale = upscale

    def forward(self, labels):
        folded = F.pixel_unshuffle(labels.unsqueeze(1), self.upscale)  # (B, r*r, H/r, W/r) int64
        features = self.embed(folded).permute(0, 1, 4, 2, 3).flatten(1, 2)
        codes = torch.round(self.conv(features) * 16).to(torch.int32)
        return torch.pixel_shuffle(codes, self.upscale), folded.amax(1)


def make_model():
    torch.manual_seed(0)
    return IntegerCodes().eval()


def _labels(batch, height, width, seed):
    return (torch.randint(0, 5, (batch, height, width), generator=torch.Generator().manual_seed(seed)),)


def example_inputs():
    return _labels(2, 8, 12, 0)


def probe_inputs():
    return [_labels(1, 6, 10, 1), _labels(3, 16, 4, 2)]


DYNAMIC = {0: {0: "batch", 1: "height", 2: "width"}}

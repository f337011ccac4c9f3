"""timm's DINOv3 RoPE (the code before commit 33bd6ad): the patch grid rebuilt every forward and
normalized by `float()` of its sizes, in a module the model holds, reached through two calls: the
static size oracle cannot follow it there. dynamo specializes the height and width at the `float()`
line (ONX914 names it), the legacy trace records them (its TracerWarning names it). With that
evidence ONX203 writes `_onnx_sym_float` (a graph value while the legacy exporter traces, torch.sym_float
everywhere else: float() itself in eager)."""
import torch
from torch import nn

DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}


class Rope(nn.Module):
    def get_embed(self, shape):
        return self._create_embed(shape)

    def _create_embed(self, feat_shape):
        H, W = feat_shape
        return self._make_coords(H, W)

    def _make_coords(self, height, width):
        coords_h = torch.arange(0.5, height, dtype=torch.float32)
        coords_w = torch.arange(0.5, width, dtype=torch.float32)
        h_denom = float(height)
        w_denom = float(width)
        coords = torch.stack(torch.meshgrid(coords_h / h_denom, coords_w / w_denom, indexing="ij"), dim=-1)
        return 2.0 * coords.flatten(0, 1) - 1.0


class PatchGrid(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, 4, kernel_size=8, stride=8)
        self.rope = Rope()

    def forward(self, x):
        x = self.patch_embed(x).permute(0, 2, 3, 1)
        B, H, W, C = x.shape
        coords = self.rope.get_embed(shape=(H, W))
        return x.reshape(B, H * W, C) * torch.cos(coords.sum(-1))[None, :, None]


def make_model():
    torch.manual_seed(0)
    return PatchGrid().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def probe_inputs():
    return [(torch.randn(2, 3, 48, 80),), (torch.randn(1, 3, 96, 40),)]

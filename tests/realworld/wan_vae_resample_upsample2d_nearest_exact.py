"""Wan 2.1 video VAE decoder stage (diffusers AutoencoderKLWan): WanResample "upsample2d" folds the frames into the
batch and runs WanUpsample(scale_factor=(2.0, 2.0), mode="nearest-exact") + Conv2d. The report (Qualcomm's
efficient-transformers Wan VAE export) had to swap "nearest-exact" for "nearest" "for ONNX compatibility": the
TorchScript exporter has no symbolic for aten::_upsample_nearest_exact2d.

Source: https://github.com/quic/efficient-transformers/pull/688
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "frames", 3: "height", 4: "width"}}
BLIND = "operators-17"


class WanRMS_norm(nn.Module):
    def __init__(self, dim: int, channel_first: bool = True, images: bool = True, bias: bool = False) -> None:
        super().__init__()
        broadcastable_dims = (1, 1, 1) if not images else (1, 1)
        shape = (dim, *broadcastable_dims) if channel_first else (dim,)

        self.channel_first = channel_first
        self.scale = dim**0.5
        self.gamma = nn.Parameter(torch.ones(shape))
        self.bias = nn.Parameter(torch.zeros(shape)) if bias else 0.0

    def forward(self, x):
        return F.normalize(x, dim=(1 if self.channel_first else -1)) * self.scale * self.gamma + self.bias


class WanUpsample(nn.Upsample):
    def forward(self, x):
        return super().forward(x.float()).type_as(x)


class WanResample(nn.Module):
    def __init__(self, dim: int, mode: str) -> None:
        super().__init__()
        self.dim = dim
        self.mode = mode
        if mode == "upsample2d":
            self.resample = nn.Sequential(
                WanUpsample(scale_factor=(2.0, 2.0), mode="nearest-exact"), nn.Conv2d(dim, dim // 2, 3, padding=1)
            )
        else:
            self.resample = nn.Identity()

    def forward(self, x, feat_cache=None, feat_idx=[0]):
        b, c, t, h, w = x.size()
        t = x.shape[2]
        x = x.permute(0, 2, 1, 3, 4).reshape(b * t, c, h, w)
        x = self.resample(x)
        x = x.view(b, t, x.size(1), x.size(2), x.size(3)).permute(0, 2, 1, 3, 4)
        return x


class WanUpStage(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.norm = WanRMS_norm(dim, images=False)
        self.nonlinearity = nn.SiLU()
        self.conv = nn.Conv3d(dim, dim, 3, padding=1)
        self.upsampler = WanResample(dim, mode="upsample2d")

    def forward(self, x):
        x = self.conv(self.nonlinearity(self.norm(x)))
        return self.upsampler(x)


def make_model():
    return WanUpStage().eval()


def example_inputs():
    return (torch.randn(1, 16, 3, 8, 10),)


def other_inputs():
    return [(torch.randn(2, 16, 5, 12, 6),), (torch.randn(3, 16, 2, 6, 14),)]


def probe_inputs():
    return other_inputs()

"""RealPLKSR (partial large-kernel CNN super-resolution, neosr / traiNNer-redux) with the `dysample=True`
upsampler: DySample builds its sampling grid from `torch.arange(H)` / `torch.arange(W)` of the feature map and
normalises it with `normalizer = torch.tensor([W, H], ...)`, a tensor made from the feature size in forward.
Submitting RealPLKSR_dysample models to OpenModelDB, the author confirmed "It supports static onnx only" (the
dysample variant cannot be exported with dynamic height/width).  (Fewer blocks and channels; `pin_memory=True`
dropped from the `torch.tensor` call so it runs on a CPU-only machine.)

Source: https://github.com/OpenModelDB/open-model-database/pull/439
"""
from functools import partial

import torch
import torch.nn.functional as F
from torch import Tensor, nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-46"


class DySample(nn.Module):
    """Adapted from 'Learning to Upsample by Learning to Sample':
    https://arxiv.org/abs/2308.15085
    https://github.com/tiny-smart/dysample
    """

    def __init__(self, in_channels: int, out_ch: int, scale: int = 2, groups: int = 4,
                 end_convolution: bool = True) -> None:
        super().__init__()
        try:
            assert in_channels >= groups
            assert in_channels % groups == 0
        except:
            msg = "Incorrect in_channels and groups values."
            raise ValueError(msg)

        out_channels = 2 * groups * scale**2
        self.scale = scale
        self.groups = groups
        self.end_convolution = end_convolution
        if end_convolution:
            self.end_conv = nn.Conv2d(in_channels, out_ch, kernel_size=1)

        self.offset = nn.Conv2d(in_channels, out_channels, 1)
        self.scope = nn.Conv2d(in_channels, out_channels, 1, bias=False)
        if self.training:
            nn.init.trunc_normal_(self.offset.weight, std=0.02)
            nn.init.constant_(self.scope.weight, val=0)

        self.register_buffer("init_pos", self._init_pos())

    def _init_pos(self) -> Tensor:
        h = torch.arange((-self.scale + 1) / 2, (self.scale - 1) / 2 + 1) / self.scale
        return (
            torch.stack(torch.meshgrid([h, h], indexing="ij"))
            .transpose(1, 2)
            .repeat(1, self.groups, 1)
            .reshape(1, -1, 1, 1)
        )

    def forward(self, x: Tensor) -> Tensor:
        offset = self.offset(x) * self.scope(x).sigmoid() * 0.5 + self.init_pos
        B, _, H, W = offset.shape
        offset = offset.view(B, 2, -1, H, W)
        coords_h = torch.arange(H) + 0.5
        coords_w = torch.arange(W) + 0.5

        coords = (
            torch.stack(torch.meshgrid([coords_w, coords_h], indexing="ij"))
            .transpose(1, 2)
            .unsqueeze(1)
            .unsqueeze(0)
            .type(x.dtype)
            .to(x.device, non_blocking=True)
        )
        normalizer = torch.tensor(
            [W, H], dtype=x.dtype, device=x.device
        ).view(1, 2, 1, 1, 1)
        coords = 2 * (coords + offset) / normalizer - 1

        coords = (
            F.pixel_shuffle(coords.reshape(B, -1, H, W), self.scale)
            .view(B, 2, -1, self.scale * H, self.scale * W)
            .permute(0, 2, 3, 4, 1)
            .contiguous()
            .flatten(0, 1)
        )
        output = F.grid_sample(
            x.reshape(B * self.groups, -1, H, W),
            coords,
            mode="bilinear",
            align_corners=False,
            padding_mode="border",
        ).view(B, -1, self.scale * H, self.scale * W)

        if self.end_convolution:
            output = self.end_conv(output)

        return output


class DCCM(nn.Sequential):
    """Doubled Convolutional Channel Mixer"""

    def __init__(self, dim: int):
        super().__init__(
            nn.Conv2d(dim, dim * 2, 3, 1, 1),
            nn.Mish(),
            nn.Conv2d(dim * 2, dim, 3, 1, 1),
        )


class PLKConv2d(nn.Module):
    """Partial Large Kernel Convolutional Layer"""

    def __init__(self, dim: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv2d(dim, dim, kernel_size, 1, kernel_size // 2)
        self.idx = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.training:
            x1, x2 = torch.split(x, [self.idx, x.size(1) - self.idx], dim=1)
            x1 = self.conv(x1)
            return torch.cat([x1, x2], dim=1)
        x[:, : self.idx] = self.conv(x[:, : self.idx])
        return x


class PLKBlock(nn.Module):
    def __init__(self, dim: int, kernel_size: int, split_ratio: float, norm_groups: int):
        super().__init__()
        self.channel_mixer = DCCM(dim)
        pdim = int(dim * split_ratio)
        self.lk = PLKConv2d(pdim, kernel_size)
        self.attn = nn.Sequential(nn.Conv2d(dim, dim, 3, 1, 1), nn.Sigmoid())
        self.refine = nn.Conv2d(dim, dim, 1, 1, 0)
        self.norm = nn.GroupNorm(norm_groups, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x_skip = x
        x = self.channel_mixer(x)
        x = self.lk(x)
        x = x * self.attn(x)
        x = self.refine(x)
        x = self.norm(x)
        return x + x_skip


class realplksr(nn.Module):
    """Partial Large Kernel CNNs for Efficient Super-Resolution:
    https://arxiv.org/abs/2404.11848
    """

    def __init__(self, in_ch: int = 3, out_ch: int = 3, dim: int = 32, n_blocks: int = 2,
                 upscaling_factor: int = 2, kernel_size: int = 9, split_ratio: float = 0.25,
                 norm_groups: int = 4, dysample: bool = True):
        super().__init__()
        self.upscale = upscaling_factor
        self.dysample = dysample
        self.feats = nn.Sequential(
            *[nn.Conv2d(in_ch, dim, 3, 1, 1)]
            + [PLKBlock(dim, kernel_size, split_ratio, norm_groups) for _ in range(n_blocks)]
            + [nn.Conv2d(dim, out_ch * upscaling_factor**2, 3, 1, 1)]
        )
        self.repeat_op = partial(torch.repeat_interleave, repeats=upscaling_factor**2, dim=1)

        if dysample and upscaling_factor != 1:
            groups = out_ch if upscaling_factor % 2 != 0 else 4
            self.to_img = DySample(
                in_ch * upscaling_factor**2,
                out_ch,
                upscaling_factor,
                groups=groups,
                end_convolution=True if upscaling_factor != 1 else False,
            )
        else:
            self.to_img = nn.PixelShuffle(upscaling_factor)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.feats(x) + self.repeat_op(x)
        if not self.dysample or (self.dysample and self.upscale != 1):
            x = self.to_img(x)
        return x


def make_model():
    return realplksr().eval()


def example_inputs():
    return (torch.rand(1, 3, 24, 32),)


def other_inputs():
    return [(torch.rand(2, 3, 40, 20),), (torch.rand(1, 3, 17, 45),)]


def probe_inputs():
    return other_inputs()

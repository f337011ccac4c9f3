"""timm MobileNetV5 (Gemma 3n vision encoder) multi-scale fusion adapter: the forward resizes each pyramid level
with `if any([r < hr for r, hr in zip(img.shape[-2:], high_resolution)])`, then picks interpolate vs
`F.avg_pool2d(kernel_size=(h_strides, w_strides))` from Python comparisons / `%` / `//` on the highest feature
size; the commit "Simplify resolution check for improved script/trace compat" rewrites the size check because
tracing/scripting could not follow it (under tracing the branches and pool strides are fixed at the export size).

Source: https://github.com/huggingface/pytorch-image-models/commit/857727ded8ff27d8b27738a4d56431229c979316
"""
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-33"


class RmsNorm2d(nn.Module):
    def __init__(self, channels, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(channels))

    def forward(self, x):
        v = x.float().pow(2).mean(dim=1, keepdim=True)
        x = x * torch.rsqrt(v + self.eps)
        return x * self.weight.view(1, -1, 1, 1)


class MobileNetV5MultiScaleFusionAdapter(nn.Module):
  def __init__(self, in_chs, out_chs, output_resolution, expansion_ratio=2.0, interpolation_mode="nearest"):
    super().__init__()
    self.in_channels = sum(in_chs)
    self.out_channels = out_chs
    self.output_resolution = (output_resolution, output_resolution)
    self.interpolation_mode = interpolation_mode
    mid = int(self.in_channels * expansion_ratio)
    self.ffn = nn.Sequential(
        nn.Conv2d(self.in_channels, mid, 1), RmsNorm2d(mid), nn.GELU(), nn.Conv2d(mid, self.out_channels, 1))
    self.norm = RmsNorm2d(self.out_channels)

  def forward(self, inputs: List[torch.Tensor]) -> torch.Tensor:
    # Inputs list of [B, C, H, W] tensors
    high_resolution = inputs[0].shape[-2:]  # Assuming the first input is the highest resolution.
    resized_inputs = []
    for _, img in enumerate(inputs):
        if any([r < hr for r, hr in zip(img.shape[-2:], high_resolution)]):
            img = F.interpolate(img, size=high_resolution, mode=self.interpolation_mode)
        resized_inputs.append(img)

    channel_cat_imgs = torch.cat(resized_inputs, dim=1)  # Cat on channel dim, must equal self.in_channels
    img = self.ffn(channel_cat_imgs)

    if high_resolution[0] != self.output_resolution[0] or high_resolution[1] != self.output_resolution[1]:
        # Interpolate / pool to target output_resolution if highest feature resolution differs
        if (
            high_resolution[0] % self.output_resolution[0] != 0 or
            high_resolution[1] % self.output_resolution[1] != 0
        ):
            img = F.interpolate(img, size=self.output_resolution, mode="bilinear")
        else:
            h_strides = high_resolution[0] // self.output_resolution[0]
            w_strides = high_resolution[1] // self.output_resolution[1]
            img = F.avg_pool2d(
                img,
                kernel_size=(h_strides, w_strides),
                stride=(h_strides, w_strides),
            )

    img = self.norm(img)

    return img


class MobileNetV5Encoder(nn.Module):
    """Tiny stand-in for the MobileNetV5 stages: features at stride 16 and 32 feed the MSFA."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, stride=4, padding=1), nn.GELU(),
                                  nn.Conv2d(16, 32, 3, stride=4, padding=1), nn.GELU())
        self.stage4 = nn.Sequential(nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.GELU())
        self.msfa = MobileNetV5MultiScaleFusionAdapter(in_chs=[32, 64], out_chs=48, output_resolution=16)

    def forward(self, x):
        f16 = self.stem(x)
        f32 = self.stage4(f16)
        return self.msfa([f16, f32])


def make_model():
    return MobileNetV5Encoder().eval()


def example_inputs():
    return (torch.randn(1, 3, 512, 512),)


def other_inputs():
    return [(torch.randn(2, 3, 768, 768),), (torch.randn(3, 3, 384, 640),)]


def probe_inputs():
    return other_inputs()

"""kornia `ApplyColorMap` on a predicted depth map: `apply_colormap` picks its normalisation with
`max_value = 1.0 if input_tensor.max() <= 1.0 else 255.0`, a Python branch on a tensor value; the PR says this
graph-breaks torch.compile(fullgraph=True) and replaces it with `torch.where` (a trace keeps only the branch
taken on the example input).

Source: https://github.com/kornia/kornia/pull/3791
"""
import torch
from torch import nn
from torch.nn.functional import interpolate

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-34"


def get_autumn_base():
    return [[1.0, i / 63, 0.0] for i in range(64)]


class ColorMap:
    def __init__(self, base, num_colors=64, device=None, dtype=None):
        self._dtype = dtype
        self._device = device
        self.colors = self._generate_color_map(base, num_colors)

    def _generate_color_map(self, base_colormap, num_colors):
        tensor_colors = torch.tensor(list(base_colormap), dtype=self._dtype, device=self._device).T
        return interpolate(tensor_colors[None, ...], size=num_colors, mode="linear")[0, ...]


def apply_colormap(input_tensor: torch.Tensor, colormap: ColorMap) -> torch.Tensor:
    if len(input_tensor.shape) == 3:
        input_tensor = input_tensor.unsqueeze_(0)

    B, C, H, W = input_tensor.shape
    input_tensor = input_tensor.reshape(B, C, -1)

    max_value = 1.0 if input_tensor.max() <= 1.0 else 255.0
    input_tensor = input_tensor.float().div_(max_value)

    colors = colormap.colors.permute(1, 0)
    num_colors, channels_cmap = colors.shape
    keys = torch.linspace(0.0, 1.0, num_colors - 1, device=input_tensor.device, dtype=input_tensor.dtype)
    indices = torch.bucketize(input_tensor, keys).unsqueeze(-1).expand(-1, -1, -1, 3)
    output = torch.gather(colors.expand(B, C, -1, -1), 2, indices)
    # (B, C, H*W, channels_cmap) -> (B, C*channels_cmap, H, W)
    output = output.permute(0, 1, 3, 2).reshape(B, C * channels_cmap, H, W)
    return output


class ApplyColorMap(nn.Module):
    def __init__(self, colormap: ColorMap) -> None:
        super().__init__()
        self.colormap = colormap

    def forward(self, input_tensor: torch.Tensor) -> torch.Tensor:
        return apply_colormap(input_tensor, self.colormap)


class DepthVisualizer(nn.Module):
    """A tiny depth head whose (unbounded, ReLU) prediction is colourised for display."""

    def __init__(self):
        super().__init__()
        self.head = nn.Sequential(nn.Conv2d(3, 1, 3, padding=1), nn.ReLU())
        self.colorize = ApplyColorMap(ColorMap(base=get_autumn_base(), num_colors=64))

    def forward(self, x):
        depth = self.head(x)
        return self.colorize(depth)


def make_model():
    return DepthVisualizer().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 48) * 0.05,)


def other_inputs():
    return [(torch.randn(3, 3, 40, 40) * 50.0,), (torch.randn(1, 3, 24, 56) * 0.05,)]


def probe_inputs():
    return other_inputs()

"""ONX608: Swin's window attention on a dynamic image size (transformers models/swin): the patch
embedding pads the image to a multiple of the patch size under `if width % patch != 0:`, the
layer pads the token grid to a multiple of the window, partitions it into windows and crops the
result back under `if pad_values[3] > 0 or pad_values[5] > 0:`. torch.export keeps the branches of
the export-time size (ONX915) and the legacy exporter records them: other sizes fail. Fixed: the
pads taken modulo their divisor always (safe), the crop always (unsafe)."""
import torch
from torch import nn


class WindowBlock(nn.Module):
    def __init__(self, patch=4, window=3, channels=8):
        super().__init__()
        self.patch, self.window = patch, window
        self.embed = nn.Conv2d(3, channels, patch, stride=patch)
        self.mix = nn.Linear(channels, channels)

    def maybe_pad(self, pixel_values, height, width):
        if width % self.patch != 0:
            pad_values = (0, self.patch - width % self.patch)
            pixel_values = nn.functional.pad(pixel_values, pad_values)
        if height % self.patch != 0:
            pad_values = (0, 0, 0, self.patch - height % self.patch)
            pixel_values = nn.functional.pad(pixel_values, pad_values)
        return pixel_values

    def forward(self, pixel_values):
        _, _, height, width = pixel_values.shape
        grid = self.embed(self.maybe_pad(pixel_values, height, width)).permute(0, 2, 3, 1)
        batch, height, width, channels = grid.shape
        pad_right = (self.window - width % self.window) % self.window
        pad_bottom = (self.window - height % self.window) % self.window
        padded = nn.functional.pad(grid, (0, 0, 0, pad_right, 0, pad_bottom))
        _, height_pad, width_pad, _ = padded.shape
        windows = padded.view(batch, height_pad // self.window, self.window, width_pad // self.window, self.window, channels)
        windows = self.mix(windows.mean(dim=(2, 4), keepdim=True)).expand_as(windows) + windows
        windows = windows.reshape(batch, height_pad, width_pad, channels)
        if pad_right > 0 or pad_bottom > 0:
            windows = windows[:, :height, :width, :].contiguous()
        return windows.reshape(batch, height * width, channels)


def make_model():
    torch.manual_seed(0)
    return WindowBlock()


def example_inputs():
    return (torch.randn(2, 3, 24, 24),)  # 6 x 6 patches: no pad at either step


def probe_inputs():
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(1, 3, 30, 26, generator=g),), (torch.randn(3, 3, 36, 44, generator=g),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}

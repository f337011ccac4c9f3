"""ONX402 on `round()` of an int computed from a size: ComfyUI's VAE.decode allocates its output
at `round(latent size * self.downscale_ratio)`, the ratio an int. The same int in eager; under the
legacy exporter the size is a 0-d tensor, which has no `__round__` (TypeError). Fixed (safe) by
dropping the `round()`."""
import torch
from torch import nn


class Upsampled(nn.Module):
    def __init__(self):
        super().__init__()
        self.downscale_ratio = 2
        self.conv = nn.Conv2d(4, 3, 3, padding=1)

    def forward(self, latents):
        size = (round(latents.shape[2] * self.downscale_ratio), round(latents.shape[3] * self.downscale_ratio))
        pixels = torch.nn.functional.interpolate(self.conv(latents), size=size, mode="nearest")
        return pixels.clamp(min=-1.0, max=1.0)


def make_model():
    torch.manual_seed(0)
    return Upsampled()


def example_inputs():
    return (torch.randn(2, 4, 6, 8),)


def probe_inputs():
    return [(torch.randn(3, 4, 5, 9),), (torch.randn(1, 4, 8, 4),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}

"""ONX402 on `round()`: torchvision's center_crop, copied into a UNet to crop the skip
connection to the upsampled size, computes `int(round((image_height - crop_height) / 2.0))`.
While the legacy exporter traces, the traced size has no `__round__` (the export fails);
torch.export specializes the float rounding to the export-time sizes (silently wrong for
others). Fixed safely by integer round-half-even."""
import torch
from torch import nn


def center_crop(img, output_size):
    image_width, image_height = img.shape[-1], img.shape[-2]
    crop_height, crop_width = output_size
    crop_top = int(round((image_height - crop_height) / 2.0))
    crop_left = int(round((image_width - crop_width) / 2.0))
    return img[..., crop_top:crop_top + crop_height, crop_left:crop_left + crop_width]


class UpBlock(nn.Module):
    def __init__(self, channels=4):
        super().__init__()
        self.down = nn.Conv2d(3, channels, 3, stride=2)
        self.up = nn.ConvTranspose2d(channels, 3, 2, stride=2)

    def forward(self, x):
        up = self.up(torch.relu(self.down(x)))
        skip = center_crop(x, up.shape[-2:])
        return torch.cat([skip, up], dim=1)


def make_model():
    torch.manual_seed(0)
    return UpBlock()


def example_inputs():
    return (torch.randn(2, 3, 21, 18),)


def probe_inputs():
    return [(torch.randn(1, 3, 16, 27),), (torch.randn(3, 3, 30, 25),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}

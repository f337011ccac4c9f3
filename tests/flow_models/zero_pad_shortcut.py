"""ONX601 on detectron2's `ImageList.from_tensors` for one image: the image is padded up to a multiple of the
backbone's stride, except where every pad amount is zero (`if all(x == 0 for x in padding_size):`, a workaround
for pytorch#31734). Exported at a size that needs no padding, torch.export pins the sizes (the amounts are 0)
and the legacy exporter records the shortcut: other sizes fail or come out wrong. Fixed by padding under export
(a pad by zeros is a copy); eager keeps the shortcut."""
import torch
import torch.nn.functional as F
from torch import nn


class ImageList:
    @staticmethod
    def from_tensors(image, size_divisibility=16, pad_value=0.0):
        height, width = image.shape[-2:]
        stride = size_divisibility
        padding_size = [0, (width + stride - 1) // stride * stride - width, 0,
                        (height + stride - 1) // stride * stride - height]
        if all(x == 0 for x in padding_size):
            batched = image.unsqueeze(0)
        else:
            padded = F.pad(image, padding_size, value=pad_value)
            batched = padded.unsqueeze_(0)
        return batched


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, kernel_size=16, stride=16)

    def forward(self, image):
        return self.conv(ImageList.from_tensors(image))


def make_model():
    torch.manual_seed(0)
    return Backbone()


def example_inputs():
    return (torch.randn(3, 64, 96),)


def probe_inputs():
    return [(torch.randn(3, 50, 70),), (torch.randn(3, 100, 45),)]


DYNAMIC = {0: {1: "height", 2: "width"}}

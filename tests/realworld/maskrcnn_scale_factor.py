"""torchvision MaskRCNN transform: the box scale factor is computed from the image sizes as Python floats
(`float(s) / float(s_orig)`), traced as a constant, so boxes are wrong for another input size.

Source: https://github.com/pytorch/pytorch/issues/33443
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "scalars"
DYNAMIC = {"image": {1: "h", 2: "w"}, "boxes": {0: "n"}}


def resize_boxes(boxes, original_size, new_size):
    ratios = [float(s) / float(s_orig) for s, s_orig in zip(new_size, original_size)]
    ratio_height, ratio_width = ratios
    xmin, ymin, xmax, ymax = boxes.unbind(1)
    return torch.stack((xmin * ratio_width, ymin * ratio_height, xmax * ratio_width, ymax * ratio_height), dim=1)


class Transform(nn.Module):
    def forward(self, image, boxes):
        resized = F.interpolate(image[None], size=(32, 32), mode="bilinear", align_corners=False)[0]
        return resized, resize_boxes(boxes, image.shape[-2:], resized.shape[-2:])


def make_model():
    return Transform()


def example_inputs():
    return (torch.rand(3, 20, 24), torch.rand(4, 4) * 20)


def other_inputs():
    return [(torch.rand(3, 40, 18), torch.rand(6, 4) * 18), (torch.rand(3, 16, 64), torch.rand(2, 4) * 16)]


def probe_inputs():
    return other_inputs()

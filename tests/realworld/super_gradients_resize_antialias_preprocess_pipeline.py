"""super-gradients `models.convert_to_onnx(..., pre_process=Compose([Resize(224), Standardize(), Normalize(...)]))`
bakes the torchvision preprocessing into the exported classifier; torchvision's tensor `Resize` defaults to
`antialias=True`, i.e. `F.interpolate(..., mode="bilinear", align_corners=False, antialias=True)`, and the ONNX export
test only passed after the commit "Added explicit antialias=False to ensure we can export this operation to ONNX".

Source: https://github.com/Deci-AI/super-gradients/pull/1824
"""
from typing import List

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-48"


def _compute_resized_output_size(image_size: List[int], size: int) -> List[int]:
    # torchvision.transforms.functional._compute_resized_output_size, int-size branch
    h, w = image_size
    short, long = (w, h) if w <= h else (h, w)
    new_short, new_long = size, int(size * long / short)
    new_w, new_h = (new_short, new_long) if w <= h else (new_long, new_short)
    return [new_h, new_w]


class Resize(nn.Module):
    # torchvision.transforms.Resize on tensors (bilinear, antialias defaults to True)
    def __init__(self, size, antialias=True):
        super().__init__()
        self.size = size
        self.antialias = antialias

    def forward(self, img):
        output_size = _compute_resized_output_size(list(img.shape[-2:]), self.size)
        return F.interpolate(img, size=output_size, mode="bilinear", align_corners=False, antialias=self.antialias)


class Standardize(torch.nn.Module):
    def __init__(self, max_val=255.0):
        super(Standardize, self).__init__()
        self.max_val = max_val

    def forward(self, img):
        return img / self.max_val


class Normalize(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", torch.tensor(mean).view(-1, 1, 1))
        self.register_buffer("std", torch.tensor(std).view(-1, 1, 1))

    def forward(self, tensor):
        return (tensor - self.mean) / self.std


class ConvertableCompletePipelineModel(torch.nn.Module):
    def __init__(self, model, pre_process=None, post_process=None):
        super(ConvertableCompletePipelineModel, self).__init__()
        self.model = model
        self.pre_process = pre_process or nn.Identity()
        self.post_process = post_process or nn.Identity()

    def forward(self, x):
        return self.post_process(self.model(self.pre_process(x)))


def make_model():
    classifier = nn.Sequential(  # stand-in for resnet18
        nn.Conv2d(3, 16, 7, stride=2, padding=3), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(3, 2, 1),
        nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10),
    )
    preprocess = nn.Sequential(Resize(224), Standardize(), Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]))
    return ConvertableCompletePipelineModel(classifier, pre_process=preprocess).eval()


def example_inputs():
    return (torch.rand(2, 3, 256, 256) * 255,)


def other_inputs():
    return [(torch.rand(1, 3, 256, 256) * 255,), (torch.rand(4, 3, 256, 256) * 255,)]


def probe_inputs():
    return other_inputs()

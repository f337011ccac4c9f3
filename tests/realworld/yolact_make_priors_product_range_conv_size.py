"""YOLACT prediction head: `make_priors` walks `for j, i in product(range(conv_h), range(conv_w))`
over the feature-map size, builds the prior boxes as a Python list and wraps them with
`torch.Tensor(prior_data)` (cached per image size in module state); exporting to ONNX gives the
TracerWarnings "Converting a tensor to a Python index" / "torch.Tensor results are registered as
constants", so the priors stay those of the export image size.

Source: https://github.com/pytorch/pytorch/issues/22120
"""
from itertools import product
from math import sqrt

import torch
import torch.nn as nn

CLASS = "constant-tensor"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-28"


class _Cfg:
    max_size = 550
    _tmp_img_h = None
    _tmp_img_w = None


cfg = _Cfg()


class PredictionModule(nn.Module):
    def __init__(self, in_channels=16, num_classes=5, aspect_ratios=[[1, 1 / 2, 2]], scales=[24]):
        super().__init__()
        self.num_classes = num_classes
        self.aspect_ratios = aspect_ratios
        self.scales = scales
        self.num_priors = sum(len(x) * len(scales) for x in aspect_ratios)
        self.bbox_layer = nn.Conv2d(in_channels, self.num_priors * 4, kernel_size=3, padding=1)
        self.conf_layer = nn.Conv2d(in_channels, self.num_priors * num_classes, kernel_size=3, padding=1)
        self.last_img_size = None
        self.priors = None

    def forward(self, x):
        conv_h = x.size(2)
        conv_w = x.size(3)
        bbox = self.bbox_layer(x).permute(0, 2, 3, 1).contiguous().view(x.size(0), -1, 4)
        conf = self.conf_layer(x).permute(0, 2, 3, 1).contiguous().view(x.size(0), -1, self.num_classes)
        priors = self.make_priors(conv_h, conv_w, x.device)
        return bbox, conf, priors

    def make_priors(self, conv_h, conv_w, device):
        """ Note that priors are [x,y,width,height] where (x,y) is the center of the box. """
        if self.last_img_size != (cfg._tmp_img_w, cfg._tmp_img_h):
            prior_data = []

            # Iteration order is important (it has to sync up with the convout)
            for j, i in product(range(conv_h), range(conv_w)):
                # +0.5 because priors are in center-size notation
                x = (i + 0.5) / conv_w
                y = (j + 0.5) / conv_h

                for ars in self.aspect_ratios:
                    for scale in self.scales:
                        for ar in ars:
                            ar = sqrt(ar)
                            w = scale * ar / cfg.max_size
                            h = scale / ar / cfg.max_size
                            prior_data += [x, y, w, h]

            self.priors = torch.Tensor(prior_data).to(device).view(-1, 4).detach()
            self.priors.requires_grad = False
            self.last_img_size = (cfg._tmp_img_w, cfg._tmp_img_h)
        return self.priors


class Yolact(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU())
        self.prediction_layer = PredictionModule()

    def forward(self, x):
        _, _, img_h, img_w = x.size()
        cfg._tmp_img_h = img_h
        cfg._tmp_img_w = img_w
        feat = self.backbone(x)
        loc, conf, priors = self.prediction_layer(feat)
        return loc, conf, priors


def make_model():
    return Yolact()


def example_inputs():
    return (torch.randn(2, 3, 32, 48),)


def other_inputs():
    return [(torch.randn(3, 3, 40, 24),), (torch.randn(1, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()

"""YOLACT's PredictionModule builds its prior boxes in forward: `make_priors(conv_h, conv_w)` loops over
`product(range(conv_h), range(conv_w))` of the feature-map size, fills a Python list and turns it into
`torch.Tensor(prior_data).view(-1, 4)`, caching it on the module by `last_conv_size`; exporting the model
with torch.onnx.export warns that the loop and the tensor are traced as constants for the export-time size.

Source: https://github.com/dbolya/yolact/issues/74
"""
from itertools import product

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-11"

NUM_CLASSES = 5
MASK_DIM = 8


class PredictionModule(nn.Module):
    def __init__(self, in_channels, out_channels=32, aspect_ratios=[[1, 0.5, 2]], scales=[24], parent=None):
        super().__init__()

        self.num_classes = NUM_CLASSES
        self.mask_dim    = MASK_DIM
        self.num_priors  = sum(len(x) for x in aspect_ratios)
        self.parent      = [parent] # Don't include this in the state dict

        if parent is None:
            self.bbox_layer = nn.Conv2d(out_channels, self.num_priors * 4,                kernel_size=3, padding=1)
            self.conf_layer = nn.Conv2d(out_channels, self.num_priors * self.num_classes, kernel_size=3, padding=1)
            self.mask_layer = nn.Conv2d(out_channels, self.num_priors * self.mask_dim,    kernel_size=3, padding=1)

        self.aspect_ratios = aspect_ratios
        self.scales = scales

        self.priors = None
        self.last_conv_size = None

    def forward(self, x):
        # In case we want to use another module's layers
        src = self if self.parent[0] is None else self.parent[0]

        conv_h = x.size(2)
        conv_w = x.size(3)

        bbox = src.bbox_layer(x).permute(0, 2, 3, 1).contiguous().view(x.size(0), -1, 4)
        conf = src.conf_layer(x).permute(0, 2, 3, 1).contiguous().view(x.size(0), -1, self.num_classes)
        mask = src.mask_layer(x).permute(0, 2, 3, 1).contiguous().view(x.size(0), -1, self.mask_dim)
        mask = torch.tanh(mask)

        priors = self.make_priors(conv_h, conv_w)

        return (bbox, conf, mask, priors)

    def make_priors(self, conv_h, conv_w):
        """ Note that priors are [x,y,width,height] where (x,y) is the center of the box. """
        if self.last_conv_size != (conv_w, conv_h):
            prior_data = []

            # Iteration order is important (it has to sync up with the convout)
            for j, i in product(range(conv_h), range(conv_w)):
                # +0.5 because priors are in center-size notation
                x = (i + 0.5) / conv_w
                y = (j + 0.5) / conv_h

                for scale, ars in zip(self.scales, self.aspect_ratios):
                    for ar in ars:
                        w = scale * ar / conv_w
                        h = scale / ar / conv_h

                        prior_data += [x, y, w, h]

            self.priors = torch.Tensor(prior_data).view(-1, 4)
            self.last_conv_size = (conv_w, conv_h)

        return self.priors


class Yolact(nn.Module):
    def __init__(self):
        super().__init__()
        # stand-in backbone: two selected layers (strides 4 and 8)
        self.backbone = nn.ModuleList([nn.Conv2d(3, 32, 3, 4, 1), nn.Conv2d(32, 32, 3, 2, 1)])
        self.prediction_layers = nn.ModuleList()
        for idx in range(2):
            parent = self.prediction_layers[0] if idx > 0 else None
            self.prediction_layers.append(PredictionModule(32, 32, parent=parent))

    def forward(self, x):
        outs = []
        for layer in self.backbone:
            x = F.relu(layer(x))
            outs.append(x)

        pred_outs = ([], [], [], [])
        for pred_x, pred_layer in zip(outs, self.prediction_layers):
            p = pred_layer(pred_x)
            for out, pred in zip(pred_outs, p):
                out.append(pred)

        pred_outs = [torch.cat(x, -2) for x in pred_outs]
        pred_outs[1] = F.softmax(pred_outs[1], -1) # Softmax the conf output
        return tuple(pred_outs)


def make_model():
    return Yolact().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 48),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 64),), (torch.randn(1, 3, 48, 80),)]


def probe_inputs():
    return other_inputs()

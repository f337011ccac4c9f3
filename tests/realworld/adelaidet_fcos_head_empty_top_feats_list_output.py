"""AdelaiDet FCOS ONNX export (onnx/export_model_to_onnx.py): the exported graph is backbone -> feature
selector -> `fcos_head_forward`, which returns `logits, bbox_reg, ctrness, top_feats, bbox_towers`, and
with no top module / no bbox towers the last two are empty Python lists; torch.onnx.export then fails
with "ArrayRef: invalid index Index = 15; Length = 15" (the reporter: "when list is empty,
torch.onnx.export can not convert").

Source: https://github.com/aim-uofa/AdelaiDet/issues/446
"""
from collections import OrderedDict

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "outputs"
FAMILY = "control_flow"
DYNAMIC = {"input": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-29"


class Scale(nn.Module):
    def __init__(self, init_value=1.0):
        super().__init__()
        self.scale = nn.Parameter(torch.FloatTensor([init_value]))

    def forward(self, input):
        return input * self.scale


class TinyFPNBackbone(nn.Module):
    def __init__(self, ch=16):
        super().__init__()
        self.stem = nn.Conv2d(3, ch, 3, stride=8, padding=1)
        self.down4 = nn.Conv2d(ch, ch, 3, stride=2, padding=1)
        self.down5 = nn.Conv2d(ch, ch, 3, stride=2, padding=1)

    def forward(self, x):
        p3 = F.relu(self.stem(x))
        p4 = F.relu(self.down4(p3))
        p5 = F.relu(self.down5(p4))
        return {"p3": p3, "p4": p4, "p5": p5}


class FCOS(torch.nn.Module):
    def __init__(self, in_features=("p3", "p4", "p5")):
        super().__init__()
        self.in_features = in_features

    def forward(self, features):
        features = [features[f] for f in self.in_features]
        return features


class FCOSHead(nn.Module):
    def __init__(self, ch=16, num_classes=8, num_levels=3):
        super().__init__()
        self.share_tower = nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1), nn.ReLU())
        for l in range(num_levels):
            setattr(self, 'cls_tower{}'.format(l), nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1), nn.ReLU()))
            setattr(self, 'bbox_tower{}'.format(l), nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1), nn.ReLU()))
        self.cls_logits = nn.Conv2d(ch, num_classes, 3, padding=1)
        self.bbox_pred = nn.Conv2d(ch, 4, 3, padding=1)
        self.ctrness = nn.Conv2d(ch, 1, 3, padding=1)
        self.scales = nn.ModuleList([Scale(init_value=1.0) for _ in range(num_levels)])

    def fcos_head_forward(self, x, top_module=None, yield_bbox_towers=False):
        logits = []
        bbox_reg = []
        ctrness = []
        top_feats = []
        bbox_towers = []
        for l, feature in enumerate(x):
            feature = self.share_tower(feature)
            cls_tower = getattr(self, 'cls_tower{}'.format(l))(feature)
            bbox_tower = getattr(self, 'bbox_tower{}'.format(l))(feature)
            if yield_bbox_towers:
                bbox_towers.append(bbox_tower)

            logits.append(self.cls_logits(cls_tower))
            ctrness.append(self.ctrness(bbox_tower))
            reg = self.bbox_pred(bbox_tower)
            if self.scales is not None:
                reg = self.scales[l](reg)
            # Note that we use relu, as in the improved FCOS, instead of exp.
            bbox_reg.append(F.relu(reg))
            if top_module is not None:
                top_feats.append(top_module(bbox_tower))
        return logits, bbox_reg, ctrness, top_feats, bbox_towers

    def forward(self, x, top_module=None, yield_bbox_towers=False):
        return self.fcos_head_forward(x, top_module, yield_bbox_towers)


def make_model():
    onnx_model = torch.nn.Sequential(OrderedDict([
        ('backbone', TinyFPNBackbone()),
        ('proposal_generator', FCOS()),
        ('heads', FCOSHead()),
    ]))
    return onnx_model.eval()


def example_inputs():
    return (torch.randn(1, 3, 128, 160),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 128),), (torch.randn(1, 3, 160, 96),)]


def probe_inputs():
    return other_inputs()

"""mmdetection RetinaNet FPN with the top-down upsampling changed to pass a scale factor computed from the
level shapes (`scale_factor = (float(prev_shape[0]) / float(cur_shape[0]), ...)`) to F.interpolate instead of
`size=prev_shape`; tools/pytorch2onnx.py (opset 11) then fails in the interpolate export. The ratios are
Python floats taken from the feature sizes of the export image.

Source: https://github.com/open-mmlab/mmcv/issues/690
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-32"


class TinyBackbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, stride=4, padding=1), nn.ReLU())
        self.c3 = nn.Sequential(nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU())
        self.c4 = nn.Sequential(nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU())
        self.c5 = nn.Sequential(nn.Conv2d(64, 128, 3, stride=2, padding=1), nn.ReLU())

    def forward(self, x):
        c3 = self.c3(self.stem(x))
        c4 = self.c4(c3)
        c5 = self.c5(c4)
        return (c3, c4, c5)


class FPN(nn.Module):
    def __init__(self, in_channels=(32, 64, 128), out_channels=32, upsample_cfg=dict(mode='nearest')):
        super(FPN, self).__init__()
        self.upsample_cfg = upsample_cfg.copy()
        self.lateral_convs = nn.ModuleList()
        self.fpn_convs = nn.ModuleList()
        for in_ch in in_channels:
            self.lateral_convs.append(nn.Conv2d(in_ch, out_channels, 1))
            self.fpn_convs.append(nn.Conv2d(out_channels, out_channels, 3, padding=1))

    def forward(self, inputs):
        # build laterals
        laterals = [
            lateral_conv(inputs[i])
            for i, lateral_conv in enumerate(self.lateral_convs)
        ]

        # build top-down path
        used_backbone_levels = len(laterals)
        for i in range(used_backbone_levels - 1, 0, -1):
            # In some cases, fixing `scale factor` (e.g. 2) is preferred, but
            #  it cannot co-exist with `size` in `F.interpolate`.
            if 'scale_factor' in self.upsample_cfg:
                laterals[i - 1] += F.interpolate(laterals[i],
                                                 **self.upsample_cfg)
            else:
                prev_shape = laterals[i - 1].shape[2:]
                cur_shape = laterals[i].shape[2:]
                scale_factor = (float(prev_shape[0]) / float(cur_shape[0]), float(prev_shape[1]) / float(cur_shape[1]))
                laterals[i - 1] += F.interpolate(
                    laterals[i], scale_factor=scale_factor, **self.upsample_cfg)

        # build outputs
        outs = [
            self.fpn_convs[i](laterals[i]) for i in range(used_backbone_levels)
        ]
        return tuple(outs)


class RetinaNetNeck(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = TinyBackbone()
        self.neck = FPN()

    def forward(self, x):
        return self.neck(self.backbone(x))


def make_model():
    return RetinaNetNeck().eval()


def example_inputs():
    return (torch.randn(1, 3, 320, 416),)


def other_inputs():
    return [(torch.randn(2, 3, 200, 296),), (torch.randn(1, 3, 416, 232),)]


def probe_inputs():
    return other_inputs()

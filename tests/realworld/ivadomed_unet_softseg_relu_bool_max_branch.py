"""ivadomed 2D U-Net for spinal-cord grey/white-matter soft segmentation (`seg_exvivo_gm-wm_t2`, final
activation "relu"): the decoder normalises its output with
`nn.ReLU()(x) / nn.ReLU()(x).max() if bool(nn.ReLU()(x).max()) else nn.ReLU()(x)`, a Python branch on a tensor
value; tracing warns "Converting a tensor to a Python boolean" and the converted .onnx model fails to load
in onnxruntime (the report and its PR blame the data-dependent `if`).

Source: https://github.com/ivadomed/ivadomed/issues/749
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import Module

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-23"


class DownConv(Module):
    def __init__(self, in_feat, out_feat, drop_rate=0.4, bn_momentum=0.1):
        super(DownConv, self).__init__()
        self.conv1 = nn.Conv2d(in_feat, out_feat, kernel_size=3, padding=1)
        self.conv1_bn = nn.BatchNorm2d(out_feat, momentum=bn_momentum)
        self.conv1_drop = nn.Dropout2d(drop_rate)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = self.conv1_bn(x)
        x = self.conv1_drop(x)
        return x


class UpConv(Module):
    def __init__(self, in_feat, out_feat, drop_rate=0.4, bn_momentum=0.1):
        super(UpConv, self).__init__()
        self.downconv = DownConv(in_feat, out_feat, drop_rate, bn_momentum)

    def forward(self, x, y):
        x = F.interpolate(x, size=y.size()[-2:], mode='bilinear', align_corners=True)
        x = torch.cat([x, y], dim=1)
        x = self.downconv(x)
        return x


class Unet(Module):
    def __init__(self, in_channel=1, out_channel=3, final_activation="relu"):
        super(Unet, self).__init__()
        self.final_activation = final_activation
        self.down1 = DownConv(in_channel, 16)
        self.down2 = DownConv(16, 32)
        self.pool = nn.MaxPool2d(2)
        self.conv_bottom = DownConv(32, 32)
        self.up1 = UpConv(32 + 32, 16)
        self.up2 = UpConv(16 + 16, 16)
        self.last_conv = nn.Conv2d(16, out_channel, kernel_size=3, padding=1)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        f1 = self.down1(x)
        f2 = self.down2(self.pool(f1))
        x = self.conv_bottom(self.pool(f2))
        x = self.up1(x, f2)
        x = self.up2(x, f1)

        # Last convolution
        x = self.last_conv(x)

        if hasattr(self, "final_activation") and self.final_activation == "softmax":
            preds = self.softmax(x)
        elif hasattr(self, "final_activation") and self.final_activation == "relu":
            preds = nn.ReLU()(x) / nn.ReLU()(x).max() if bool(nn.ReLU()(x).max()) else nn.ReLU()(x)
        else:
            preds = torch.sigmoid(x)

        if preds.shape[1] > 1:
            # Remove background class
            preds = preds[:, 1:, ]

        return preds


def make_model():
    return Unet().eval()


def example_inputs():
    return (torch.randn(1, 1, 64, 64),)


def other_inputs():
    return [(torch.randn(2, 1, 48, 80),), (torch.randn(3, 1, 96, 32),)]


def probe_inputs():
    return other_inputs()

"""UPerNet/PSP pyramid pooling module: `nn.AdaptiveAvgPool2d(scale)` for pool_scales (1, 2, 3, 6)
on a feature map whose size is not a multiple of every scale; "ONNX export of operator
adaptive_avg_pool2d, since output size is not factor of input size" is unsupported.

Source: https://github.com/pytorch/pytorch/issues/64806
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"conv5": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-1"


class PPMHead(nn.Module):
    def __init__(self, num_class=5, fc_dim=32, pool_scales=(1, 2, 3, 6)):
        super().__init__()
        self.ppm_pooling = []
        self.ppm_conv = []
        for scale in pool_scales:
            self.ppm_pooling.append(nn.AdaptiveAvgPool2d(scale))
            self.ppm_conv.append(nn.Sequential(
                nn.Conv2d(fc_dim, 16, kernel_size=1, bias=False),
                nn.BatchNorm2d(16),
                nn.ReLU(inplace=True)
            ))
        self.ppm_pooling = nn.ModuleList(self.ppm_pooling)
        self.ppm_conv = nn.ModuleList(self.ppm_conv)
        self.conv_last = nn.Conv2d(fc_dim + len(pool_scales) * 16, num_class, kernel_size=3, padding=1)

    def forward(self, conv5):
        input_size = conv5.size()
        ppm_out = [conv5]
        for pool_scale, pool_conv in zip(self.ppm_pooling, self.ppm_conv):
            ppm_out.append(pool_conv(nn.functional.interpolate(
                pool_scale(conv5),
                (input_size[2], input_size[3]),
                mode='bilinear', align_corners=False)))
        ppm_out = torch.cat(ppm_out, 1)
        return self.conv_last(ppm_out)


def make_model():
    return PPMHead().eval()


def example_inputs():
    return (torch.randn(1, 32, 20, 28),)


def other_inputs():
    return [(torch.randn(2, 32, 16, 17),), (torch.randn(1, 32, 25, 13),)]


def probe_inputs():
    return other_inputs()

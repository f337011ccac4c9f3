"""A Mask R-CNN box head whose conv norms use batch statistics at inference (detectron2's Rethinking-BatchNorm
`BatchNormBatchStat`: in eval it calls F.batch_norm(input, None, None, weight, bias, True, 1.0, eps)). The
onnxscript PR fixes exporting aten::native_batch_norm when running_mean/running_var are None (batch statistics,
training=True), noting that onnxruntime only runs BatchNormalization in training mode below opset 14; the legacy
exporter still cannot lower batch-statistics batch_norm when the number of RoIs is dynamic.

Source: https://github.com/microsoft/onnxscript/pull/1804
"""
import torch
from torch import nn
from torch.nn import BatchNorm2d
from torch.nn import functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "num_rois"}}
BLIND = "operators-60"


class BatchNormBatchStat(BatchNorm2d):
    """
    BN that uses batch stat in inference
    """

    def forward(self, input):
        if self.training:
            return super().forward(input)
        return F.batch_norm(input, None, None, self.weight, self.bias, True, 1.0, self.eps)


class FastRCNNConvFCHead(nn.Module):
    """4conv1fc box head with conv_norm = BatchNormBatchStat."""

    def __init__(self, in_channels=32, conv_dims=(32, 32, 32, 32), fc_dims=(64,), pooler_resolution=7):
        super().__init__()
        self.convs = nn.ModuleList()
        self.norms = nn.ModuleList()
        c = in_channels
        for d in conv_dims:
            self.convs.append(nn.Conv2d(c, d, kernel_size=3, padding=1, bias=False))
            self.norms.append(BatchNormBatchStat(d))
            c = d
        self.fcs = nn.ModuleList()
        k = c * pooler_resolution * pooler_resolution
        for d in fc_dims:
            self.fcs.append(nn.Linear(k, d))
            k = d

    def forward(self, x):
        for conv, norm in zip(self.convs, self.norms):
            x = F.relu(norm(conv(x)))
        x = torch.flatten(x, start_dim=1)
        for fc in self.fcs:
            x = F.relu(fc(x))
        return x


def make_model():
    return FastRCNNConvFCHead().eval()


def example_inputs():
    return (torch.randn(8, 32, 7, 7),)


def other_inputs():
    return [(torch.randn(13, 32, 7, 7),), (torch.randn(3, 32, 7, 7),)]


def probe_inputs():
    return other_inputs()

"""Eager-mode QAT network (QuantStub -> conv/bn/relu -> DeQuantStub) prepared with
`torch.quantization.prepare_qat` and the default 'qnnpack' QAT qconfig, exported straight from the
QAT model; the report: "Exporting the operator 'aten::fused_moving_avg_obs_fake_quant' to ONNX opset
version 14 is not supported" (the default QAT fake-quantize module calls that fused op).

Source: https://github.com/pytorch/pytorch/issues/108828
"""
import torch
import torch.nn as nn
from torch.quantization import QuantStub, DeQuantStub
import torch.quantization

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-5"


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.bn1 = nn.BatchNorm2d(6)
        self.relu1 = nn.ReLU()
        self.quant = QuantStub()
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.relu1(self.bn1(self.conv1(x)))
        x = self.dequant(x)
        return x

    def fuse_model(self):
        torch.quantization.fuse_modules(self, ['conv1', 'bn1', 'relu1'], inplace=True)


def make_model():
    net = Net()
    net.train()
    net.qconfig = torch.quantization.get_default_qat_qconfig('qnnpack')
    torch.quantization.prepare_qat(net, inplace=True)
    return net


def example_inputs():
    return (torch.randn(1, 3, 48, 48),)


def other_inputs():
    return [(torch.randn(2, 3, 40, 56),), (torch.randn(3, 3, 32, 32),)]


def probe_inputs():
    return other_inputs()

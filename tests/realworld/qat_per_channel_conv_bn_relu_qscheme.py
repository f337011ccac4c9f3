"""Quantization-aware-trained stem (QuantStub -> Conv2d(3, 64, 7, stride 2) -> BatchNorm2d -> ReLU ->
DeQuantStub) converted with `torch.quantization.convert`; the fbgemm QAT qconfig quantizes the conv
weight per channel (kPerChannelAffine) and export stops with "Expected quantizer->qscheme() ==
kPerTensorAffine to be true, but got false" while unpacking the quantized weights (on torch 2.13 the
TorchScript exporter gets past the weights and stops at the unfused `quantized::batch_norm2d`; the
dynamo exporter cannot trace the quantized modules).

Source: https://github.com/pytorch/pytorch/issues/75785
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-6"


class qatmodel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = torch.quantization.QuantStub()
        self.dequant = torch.quantization.DeQuantStub()
        self.conv1 = torch.nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=True)
        self.bn1 = torch.nn.BatchNorm2d(64)
        self.relu1 = torch.nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.quant(x)
        x = self.conv1(x)
        x = self.bn1(x)
        x = self.relu1(x)
        x = self.dequant(x)
        return x


def make_model():
    torch.backends.quantized.engine = "fbgemm"
    my_model = qatmodel()
    my_model.train()
    my_model.qconfig = torch.quantization.get_default_qat_qconfig("fbgemm")
    torch.quantization.prepare_qat(my_model, inplace=True)
    for _ in range(4):  # a few "training" steps to settle observers
        my_model(torch.randn(4, 3, 32, 32))
    my_model.eval()
    torch.quantization.convert(my_model, inplace=True)
    return my_model


def example_inputs():
    return (torch.randn(2, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 3, 40, 24),), (torch.randn(1, 3, 16, 48),)]


def probe_inputs():
    return other_inputs()

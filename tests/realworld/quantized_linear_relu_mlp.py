"""Credit-scoring MLP quantized with eager-mode static quantization (Linear+ReLU fused, then
`torch.ao.quantization.convert`); export stops at "Export of `quantized::linear_relu` operator not
supported with `torch.onnx.export`".

Source: https://github.com/pytorch/pytorch/issues/107522
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch_size"}}
BLIND = "operators-1"


class CreditNet(nn.Module):
    def __init__(self, in_features=41):
        super().__init__()
        self.quant = torch.ao.quantization.QuantStub()
        self.fc1 = nn.Linear(in_features, 64)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(64, 32)
        self.relu2 = nn.ReLU()
        self.out = nn.Linear(32, 1)
        self.dequant = torch.ao.quantization.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.relu1(self.fc1(x))
        x = self.relu2(self.fc2(x))
        x = self.out(x)
        x = self.dequant(x)
        return torch.sigmoid(x)


def make_model():
    torch.backends.quantized.engine = "fbgemm" if "fbgemm" in torch.backends.quantized.supported_engines \
        else torch.backends.quantized.supported_engines[-1]
    model = CreditNet().eval()
    model.qconfig = torch.ao.quantization.get_default_qconfig(torch.backends.quantized.engine)
    model = torch.ao.quantization.fuse_modules(model, [["fc1", "relu1"], ["fc2", "relu2"]])
    model = torch.ao.quantization.prepare(model)
    with torch.no_grad():
        for _ in range(4):
            model(torch.randn(32, 41))
    quantized_model_1 = torch.ao.quantization.convert(model)
    return quantized_model_1


def example_inputs():
    return (torch.randn(1, 41),)


def other_inputs():
    return [(torch.randn(5, 41),), (torch.randn(3, 41),)]


def probe_inputs():
    return other_inputs()

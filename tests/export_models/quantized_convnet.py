"""A small convnet converted by torch.ao's eager-mode static quantization (QuantStub, Conv+ReLU
fused, a QFunctional skip add, a quantized Linear, DeQuantStub), as the PyTorch tutorial and
pytorch/pytorch#137111 build it: torch.export cannot trace the packed weights. The
quantized_as_float repair exports the float arithmetic of each module on its grid."""
import torch
from torch import nn


class SmallQuantNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = torch.ao.quantization.QuantStub()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.skip = torch.ao.nn.quantized.FloatFunctional()
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8, 4)
        self.dequant = torch.ao.quantization.DeQuantStub()

    def forward(self, x):
        x = self.relu(self.conv(self.quant(x)))
        x = self.skip.add(x, self.conv2(x))
        x = self.fc(self.pool(x).permute(0, 2, 3, 1))  # per position, channels last
        return self.dequant(x)


def make_model():
    torch.manual_seed(0)
    torch.backends.quantized.engine = "fbgemm"
    model = SmallQuantNet().eval()
    model.qconfig = torch.ao.quantization.get_default_qconfig("fbgemm")
    model = torch.ao.quantization.fuse_modules(model, [["conv", "relu"]])
    prepared = torch.ao.quantization.prepare(model)
    with torch.no_grad():
        for _ in range(4):
            prepared(torch.randn(2, 3, 12, 12))
    return torch.ao.quantization.convert(prepared)


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 3, 12, 12),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(3, 3, 16, 10),), (torch.randn(1, 3, 8, 6),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}

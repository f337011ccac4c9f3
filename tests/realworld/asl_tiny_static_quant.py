"""aslTinyModel: a tiny gesture (sign-language) classifier over a 10-value sensor vector, eager-mode
static quantization (QuantStub -> fc1/fc2/fc3 -> DeQuantStub, `torch.quantization.prepare` /
`convert`), then exported; the report fails on `quantize_per_tensor` ("Exporting the operator
quantize_per_tensor to ONNX opset version 10 is not supported").

Source: https://github.com/pytorch/pytorch/issues/47217
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-3"

INPUT_LEN = 10
NUM_GESTURES = 5


#### MODEL ####
class aslTinyModel(nn.Module):
    def __init__(self):
        super(aslTinyModel, self).__init__()
        self.quant = torch.quantization.QuantStub()
        self.fc1 = nn.Linear(INPUT_LEN, 8)
        self.fc2 = nn.Linear(8, 4)
        self.fc3 = nn.Linear(4, NUM_GESTURES)
        self.dequant = torch.quantization.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        h = F.relu(self.fc1(x))
        h = F.relu(self.fc2(h))
        h = F.relu(self.fc3(h))
        h = self.dequant(h)
        return h


def make_model():
    model = aslTinyModel()
    model.eval()
    model.qconfig = torch.quantization.default_qconfig
    torch.quantization.prepare(model, inplace=True)
    # calibration batches
    for _ in range(10):
        model(torch.randn(16, INPUT_LEN))
    torch.quantization.convert(model, inplace=True)
    return model


def example_inputs():
    return (torch.randn(2, INPUT_LEN),)


def other_inputs():
    return [(torch.randn(5, INPUT_LEN),), (torch.randn(1, INPUT_LEN),)]


def probe_inputs():
    return other_inputs()

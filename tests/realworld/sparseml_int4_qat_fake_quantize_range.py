"""SparseML int4 quantization-aware training: the recipe gives the Conv/Linear weight and activation
FakeQuantize modules a 4-bit range (quant_min=-8, quant_max=7, qint8); QAT runs fine but
torch.onnx.export fails with "For (quant_min, quant_max), ONNX allows only (0, 127), (0, 255) and
(-128, 127). Got (-8, 7)".

Source: https://github.com/neuralmagic/sparseml/pull/1670
"""
import torch
from torch import nn
import torch.nn.functional as F
from torch.ao.quantization import FakeQuantize, MovingAverageMinMaxObserver

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-10"


def int4_fake_quant():
    return FakeQuantize(
        observer=MovingAverageMinMaxObserver,
        quant_min=-8,
        quant_max=7,
        dtype=torch.qint8,
        qscheme=torch.per_tensor_symmetric,
        reduce_range=False,
    )


class QATConv2d(nn.Conv2d):
    """Conv2d whose weight goes through a 4-bit FakeQuantize (as torch.ao.nn.qat.Conv2d)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.weight_fake_quant = int4_fake_quant()

    def forward(self, input):
        return self._conv_forward(input, self.weight_fake_quant(self.weight), self.bias)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.input_quant = int4_fake_quant()
        self.conv1 = QATConv2d(3, 16, 3, padding=1)
        self.act1_quant = int4_fake_quant()
        self.conv2 = QATConv2d(16, 16, 3, padding=1)
        self.act2_quant = int4_fake_quant()
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.input_quant(x)
        x = self.act1_quant(F.relu(self.conv1(x)))
        x = self.act2_quant(F.relu(self.conv2(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


def make_model():
    model = ConvNet()
    with torch.no_grad():  # a few calibration / QAT steps, then freeze the observers
        for _ in range(4):
            model(torch.randn(4, 3, 28, 28))
    model.apply(torch.ao.quantization.disable_observer)
    return model.eval()


def example_inputs():
    return (torch.randn(1, 3, 28, 28),)


def other_inputs():
    return [(torch.randn(2, 3, 32, 24),), (torch.randn(3, 3, 20, 36),)]


def probe_inputs():
    return other_inputs()

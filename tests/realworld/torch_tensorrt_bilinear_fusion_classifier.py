"""A two-branch classifier fuses its two feature vectors with an `nn.Bilinear` layer (the author says
replacing it costs accuracy). Torch-TensorRT rejects it with "Unsupported operator: aten::bilinear(Tensor
input1, Tensor input2, Tensor weight, Tensor? bias)"; the TorchScript-based ONNX exporter likewise has
no symbolic for `aten::bilinear`.

Source: https://github.com/pytorch/TensorRT/issues/826
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x1": {0: "batch"}, "x2": {0: "batch"}}
BLIND = "operators-26"


class BilinearModel(nn.Module):
    def __init__(self, in1=32, in2=24, hidden=64, num_classes=5):
        super().__init__()
        self.branch1 = nn.Sequential(nn.Linear(in1, hidden), nn.ReLU())
        self.branch2 = nn.Sequential(nn.Linear(in2, hidden), nn.ReLU())
        self.bilinear = nn.Bilinear(hidden, hidden, hidden)
        self.classifier = nn.Linear(hidden, num_classes)

    def forward(self, x1, x2):
        h1 = self.branch1(x1)
        h2 = self.branch2(x2)
        fused = torch.relu(self.bilinear(h1, h2))
        return self.classifier(fused)


def make_model():
    return BilinearModel().eval()


def example_inputs():
    return (torch.randn(4, 32), torch.randn(4, 24))


def other_inputs():
    return [(torch.randn(7, 32), torch.randn(7, 24)), (torch.randn(1, 32), torch.randn(1, 24))]


def probe_inputs():
    return other_inputs()

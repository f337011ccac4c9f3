"""LeNet whose forward ends with `x = torch.tensor(1)`: "INTERNAL ASSERT FAILED ... when returning a constant
tensor in the forward method" under the dynamo exporter.

Source: https://github.com/pytorch/pytorch/issues/132134
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "constant-tensor"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "batch"}}


class MyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.fc1 = nn.Linear(6 * 4 * 4, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 3)
        x = self.fc1(torch.flatten(x, 1))
        return x, torch.tensor(1)


def make_model():
    return MyModel()


def example_inputs():
    return (torch.randn(2, 1, 16, 16),)


def other_inputs():
    return [(torch.randn(3, 1, 16, 16),), (torch.randn(1, 1, 16, 16),)]


def probe_inputs():
    return other_inputs()

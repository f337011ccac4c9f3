"""An export wrapper around a plain Python class holding the network (RIFE's `Model` with
`self.flownet = IFNet()`): the weights are not the wrapper's parameters, so the legacy tracer
records them as constants and refuses them while they require grad."""
import torch
from torch import nn


class Flow(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = nn.Sequential(nn.Conv2d(6, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 3, 3, padding=1))

    def forward(self, x1, x2):
        return self.block(torch.cat([x1, x2], 1))


class Model:
    def __init__(self):
        self.flownet = Flow()

    def inference(self, x1, x2):
        return self.flownet(x1, x2)


class Wrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = Model()

    def forward(self, x1, x2):
        return self.model.inference(x1, x2)


def make_model():
    torch.manual_seed(0)
    return Wrapper()


def example_inputs():
    return (torch.randn(1, 3, 16, 16), torch.randn(1, 3, 16, 16))


def probe_inputs():
    return [(torch.randn(2, 3, 24, 20), torch.randn(2, 3, 24, 20))]

"""SparseDrive's box refinement: `output[..., self.refine_state] = output[..., self.refine_state] +
anchor[..., self.refine_state]`, a write through `...` and a list index. The legacy exporter's
graph fails onnx.checker ("Node (/Add)'s input 0 is marked single but has an empty string in the
graph"); with the `...` spelled out as slices while exporting it exports and matches."""
import torch
from torch import nn


class Refinement(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Linear(8, 11)
        self.refine_state = [0, 1, 2, 3, 4, 5]

    def forward(self, instance_feature, anchor):
        output = self.layers(instance_feature)
        output[..., self.refine_state] = output[..., self.refine_state] + anchor[..., self.refine_state]
        return output


def make_model():
    torch.manual_seed(0)
    return Refinement()


def example_inputs():
    return (torch.randn(2, 5, 8), torch.randn(2, 5, 11))


def probe_inputs():
    return [(torch.randn(3, 7, 8), torch.randn(3, 7, 11))]

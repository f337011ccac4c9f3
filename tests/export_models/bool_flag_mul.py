"""BEVFormer's BEV encoder: `bev_queries + can_bus * self.use_can_bus`, a tensor times a Python bool
flag from the config. The legacy tracer records aten::mul(Tensor, bool), which TorchScript has no
schema for ("We don't have an op for aten::mul but it isn't a special case"); bool_scalars_as_ints
runs the flag as the int it equals while exporting; a bool tensor times a flag is computed on
uint8 and read back as bool."""
import torch
from torch import nn


class BevEncoder(nn.Module):
    def __init__(self, use_can_bus=True, keep_mask=False):
        super().__init__()
        self.use_can_bus = use_can_bus
        self.keep_mask = keep_mask
        self.can_bus_mlp = nn.Linear(6, 8)
        self.queries = nn.Parameter(torch.randn(4, 8))

    def forward(self, can_bus):
        can_bus = self.can_bus_mlp(can_bus)[:, None, :]
        mask = (can_bus > 0) * self.keep_mask  # a bool tensor: stays bool (uint8 inside the export)
        return self.queries + can_bus * self.use_can_bus, mask


def make_model():
    torch.manual_seed(0)
    return BevEncoder().eval()


def example_inputs():
    torch.manual_seed(1)
    return (torch.randn(2, 6),)


def probe_inputs():
    torch.manual_seed(2)
    return [(torch.randn(5, 6),)]

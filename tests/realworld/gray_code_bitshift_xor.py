"""Gray-code decoder over int64 codes: `gray ^= gray >> shift` for shifts 16, 8, 4, 2, 1. The
report finds `__rshift__` / `__lshift__` (ONNX BitShift) unsupported by the exporter with and
without dynamo; on torch 2.13 the TorchScript exporter stops on the in-place xor (`__ixor_`).

Source: https://github.com/pytorch/pytorch/issues/149083
"""
import math
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"gray": {0: "n"}}
BLIND = "operators-2"


class Gray(torch.nn.Module):
    nbits: int = 32

    def forward(self, gray: torch.Tensor):
        shifts = [(0x1 << i) for i in range((math.ceil(math.log(self.nbits, 2)) - 1), -1, -1)]
        for shift in shifts:
            gray ^= gray >> shift

        return gray


def make_model():
    return Gray()


def example_inputs():
    return (torch.randint(0, 100, [100], dtype=torch.long),)


def other_inputs():
    return [(torch.randint(0, 1 << 20, [37], dtype=torch.long),),
            (torch.randint(0, 1000, [250], dtype=torch.long),)]


def probe_inputs():
    return other_inputs()

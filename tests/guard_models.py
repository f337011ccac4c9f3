"""Small models for tests/test_export_guards.py: the TorchScript tracing-state guards of
torchvision (`torchvision._is_tracing()` is `return torch._C._get_tracing_state()`, torchvision
0.29.1 __init__.py) and `@torch.jit._script_if_tracing` functions. A file of its own: TorchScript
compiles a function from its source file."""
import torch
from torch import nn

SEEN: list[tuple[bool, bool]] = []  # (tracing state, torch.jit.is_tracing()) per forward call


class TracingGuard(nn.Module):
    """roi_heads' `if torchvision._is_tracing(): return <ONNX-friendly path>` shape."""

    def forward(self, x):
        SEEN.append((bool(torch._C._get_tracing_state()), torch.jit.is_tracing()))
        if torch._C._get_tracing_state():
            return x + 1
        return x * 2


@torch.jit._script_if_tracing
def rows_doubled(x):
    out = torch.zeros(0, x.size(1))
    for i in range(int(x.size(0))):  # ONX603 and ONX203's patterns
        out = torch.cat((out, (x[i] * 2).unsqueeze(0)))
    return out


class RowLoop(nn.Module):
    def forward(self, x):
        return rows_doubled(x)


@torch.jit._script_if_tracing
def first_n(x, n):
    count = int(n.item())  # ONX201's pattern
    return x[:count]


class FirstN(nn.Module):
    def forward(self, x, n):
        return first_n(x, n)


@torch.jit._script_if_tracing
def first_int_n(x, n):
    return x[: int(n)]  # ONX203's pattern on a tensor (roi_heads' `int(h)`)


class FirstIntN(nn.Module):
    def forward(self, x, n):
        return first_int_n(x, n)


@torch.jit._script_if_tracing
def floor_halves(a, b):
    return a // b  # ONX518's pattern


class FloorHalves(nn.Module):
    def forward(self, a, b):
        return floor_halves(a, b)

"""Zipformer (icefall) feed-forward module with the SwooshL / SwooshR activations written as
`torch.logaddexp(zero, x - 4.0) - 0.08 * x - 0.035`; `torch.onnx.export()` fails on
`torch.logaddexp` even though jit.trace / jit.script accept it.

Source: https://github.com/k2-fsa/icefall/pull/1158
"""
import torch
from torch import Tensor, nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "seq_len", 1: "batch"}}
BLIND = "operators-2"


def logaddexp(x: Tensor, y: Tensor) -> Tensor:
    return torch.logaddexp(x, y)


class SwooshL(torch.nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        """Return Swoosh-L activation."""
        zero = torch.tensor(0.0, dtype=x.dtype, device=x.device)
        return logaddexp(zero, x - 4.0) - 0.08 * x - 0.035


class SwooshR(torch.nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        """Return Swoosh-R activation."""
        zero = torch.tensor(0.0, dtype=x.dtype, device=x.device)
        return logaddexp(zero, x - 1.0) - 0.08 * x - 0.313261687


class FeedforwardModule(nn.Module):
    """Feedforward module in Zipformer2 model."""

    def __init__(self, embed_dim: int, feedforward_dim: int):
        super(FeedforwardModule, self).__init__()
        self.in_proj = nn.Linear(embed_dim, feedforward_dim)
        self.activation = SwooshL()
        self.out_proj = nn.Linear(feedforward_dim, embed_dim)

    def forward(self, x: Tensor):
        x = self.in_proj(x)
        x = self.activation(x)
        x = self.out_proj(x)
        return x


class ZipformerBlock(nn.Module):
    def __init__(self, embed_dim=192, feedforward_dim=512):
        super().__init__()
        self.feed_forward1 = FeedforwardModule(embed_dim, feedforward_dim)
        self.feed_forward2 = FeedforwardModule(embed_dim, feedforward_dim)
        self.proj = nn.Linear(embed_dim, embed_dim)
        self.out_activation = SwooshR()

    def forward(self, x: Tensor) -> Tensor:
        # x: (seq_len, batch_size, embed_dim)
        x = x + self.feed_forward1(x)
        x = x + self.out_activation(self.proj(x))
        x = x + self.feed_forward2(x)
        return x


def make_model():
    return ZipformerBlock()


def example_inputs():
    return (torch.randn(50, 2, 192),)


def other_inputs():
    return [(torch.randn(37, 3, 192),), (torch.randn(81, 1, 192),)]


def probe_inputs():
    return other_inputs()

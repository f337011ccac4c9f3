"""ONX203 on a chained assignment: InternVL's vision features fold the patch tokens into their grid
with `h = w = int(n ** 0.5)` and transpose it. The legacy exporter records the
export-time side (onnxruntime then fails to reshape other grids); `_onnx_sym_int` keeps both names a
graph value while it traces (a 0-d tensor serves the reshape), and is `int()` in eager."""
import torch
from torch import nn


class TokenGrid(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 8)

    def forward(self, tokens):
        h = w = int(tokens.shape[1] ** 0.5)  # the largest square grid; the tokens past it are dropped
        grid = tokens[:, : h * w].reshape(tokens.shape[0], h, w, -1)
        return self.proj(grid.transpose(1, 2).flatten(1, 2))


def make_model():
    torch.manual_seed(0)
    return TokenGrid()


def example_inputs():
    return (torch.randn(2, 16, 4),)


def probe_inputs():
    return [(torch.randn(1, 36, 4),), (torch.randn(3, 64, 4),)]


DYNAMIC = {0: {0: "batch", 1: "tokens"}}

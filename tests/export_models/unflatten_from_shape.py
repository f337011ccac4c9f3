"""MiDaS / DPT's token maps (isl-org/MiDaS#182): `nn.Unflatten(2, torch.Size([h // 8, w // 8]))` built in
forward from the input's height and width turns the tokens back into a feature map. The legacy tracer
hands the sizes over as 0-d tensors, which the layer's constructor refuses ("unflattened_size must be
tuple of ints, but found element of type Tensor"); unflatten_traced_sizes, named by that error, lets
them through while exporting, and the layer's forward traces them."""
import torch
from torch import nn

DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}


class TokenMap(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Conv2d(3, 8, kernel_size=8, stride=8)
        self.head = nn.Conv2d(8, 4, kernel_size=1)

    def forward(self, x):
        b, c, h, w = x.shape
        tokens = self.embed(x).flatten(2)
        unflatten = nn.Unflatten(2, torch.Size([h // 8, w // 8]))
        return self.head(unflatten(tokens))


def make_model():
    torch.manual_seed(0)
    return TokenMap().eval()


def _inputs(batch, height, width, seed):
    return (torch.randn(batch, 3, height, width, generator=torch.Generator().manual_seed(seed)),)


def example_inputs():
    return _inputs(1, 32, 48, 0)


def probe_inputs():
    return [_inputs(2, 48, 16, 1), _inputs(1, 24, 40, 2)]

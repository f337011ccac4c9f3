"""ONX208 and the as_strided decomposition, on a conformer's relative shift (icefall, WeNet,
ChunkFormer): the strides read with x.stride(), as_strided with an offset computed from the sizes.
Before: the dynamo exporter cannot translate aten.sym_stride, the legacy exporter's as_strided
refuses a traced offset. `onnxfix export --fix`: both export and match eager on other lengths."""
import torch
from torch import nn


class RelShift(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.full((8, 1, 1), 0.5))

    def forward(self, x):  # x: (batch, heads, time1, 2 * time1 - 1)
        batch_size, num_heads, time1, n = x.size()
        batch_stride, head_stride, time1_stride, n_stride = x.stride()
        shifted = x.as_strided((batch_size, num_heads, time1, time1),
                               (batch_stride, head_stride, time1_stride - n_stride, n_stride),
                               storage_offset=n_stride * (time1 - 1))
        return shifted * self.scale


def make_model():
    torch.manual_seed(0)
    return RelShift().eval()


def example_inputs():
    return (torch.randn(2, 8, 5, 9),)


def probe_inputs():
    return [(torch.randn(3, 8, 7, 13),), (torch.randn(1, 8, 3, 5),)]


DYNAMIC = {0: {0: "batch", 2: "time", 3: "positions"}}

"""A float16 segment-sum pooling (`pooled.index_add_(0, segment_ids, h)`, a GNN's sum aggregation
run in half precision) and a keypoint mask made with `torch.min` of two bool masks (D2-Net's hard
detection): onnxruntime's CPU provider has no float16 ScatterElements / ScatterND with a reduction
("MLFloat16 data type is not supported") and refuses the legacy exporter's Min on bool on load.
float32_compute, named by either error, scatters in float32 (written back into the float16 tensor
the in-place op writes) and takes the minimum of the masks as bytes."""
import torch
from torch import nn


class SegmentPeaks(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, segment_ids):
        h = self.proj(x)
        pooled = h.new_zeros(4, h.shape[1])
        pooled.index_add_(0, segment_ids, h)
        peaks = torch.min(h > 0, h == h.max(dim=0).values)
        return pooled, peaks


def make_model():
    torch.manual_seed(0)
    return SegmentPeaks().half()


def _inputs(rows, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(rows, 8, generator=g).half(), torch.randint(0, 4, (rows,), generator=g)


def example_inputs():
    return _inputs(6, 0)


def probe_inputs():
    return [_inputs(9, 1), _inputs(3, 2)]


DYNAMIC = {0: {0: "rows"}, 1: {0: "rows"}}

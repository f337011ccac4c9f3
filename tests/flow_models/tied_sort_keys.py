"""ONX537 on an unstable sort of tied keys: MinerU's layout post-processing moves the kept queries
first with `torch.argsort(mask.to(torch.int8), dim=1, descending=True)` and gathers the boxes by
those indices. ATen (eager) and onnxruntime's TopK order the equal keys apart, so both exporters'
boxes differ from eager's wherever keys tie. Fixed by `_onnx_argsort`, the stable sort (unsafe:
eager's tie order becomes input order; the keys' order and the set of boxes per key stay).
Outputs: the sorted keys, then the boxes."""
import torch
from torch import nn


class KeptFirst(nn.Module):
    def forward(self, scores, boxes):
        mask = scores.sigmoid() >= 0.5
        keys = mask.to(torch.int8)
        indices = torch.argsort(keys, dim=1, descending=True)
        return torch.gather(keys, 1, indices), torch.gather(boxes, 1, indices[..., None].expand(-1, -1, 4))


def make_model():
    torch.manual_seed(0)  # the inputs are drawn after it
    return KeptFirst()


def _inputs(b, n):
    return torch.randn(b, n), torch.randn(b, n, 4)


def example_inputs():
    return _inputs(2, 60)


def probe_inputs():
    return [_inputs(1, 45), _inputs(3, 80)]


DYNAMIC = {0: {0: "b", 1: "n"}, 1: {0: "b", 1: "n"}}

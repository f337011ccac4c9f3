"""TAPAS segment reduction: `torch.as_tensor([index.num_segments])`, `torch.as_tensor(vector_shape)` with
`vector_shape = values.size()[...]` and `.tolist()`; TracerWarnings "results are registered as constants"
and "Converting a tensor to a Python list".

Source: https://github.com/pytorch/pytorch/issues/73388
"""
import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "scalars"
DYNAMIC = {"values": {0: "batch"}, "segment_ids": {0: "batch"}}


class SegmentMean(nn.Module):
    def __init__(self, num_segments=4):
        super().__init__()
        self.num_segments = num_segments

    def forward(self, values, segment_ids):
        batch_size = values.size(0)
        vector_shape = values.size()[2:]
        offset = torch.arange(batch_size) * self.num_segments
        flat_ids = (segment_ids + offset[:, None]).view(-1)
        flat_values = values.reshape(-1, *vector_shape)
        out_shape = torch.cat([torch.as_tensor([batch_size * self.num_segments]), torch.as_tensor(vector_shape, dtype=torch.long)])
        sums = torch.zeros(out_shape.tolist()).index_add(0, flat_ids, flat_values)
        return sums.view(batch_size, self.num_segments, *vector_shape)


def make_model():
    return SegmentMean()


def example_inputs():
    return (torch.randn(2, 5, 3), torch.randint(0, 4, (2, 5)))


def other_inputs():
    return [(torch.randn(3, 5, 3), torch.randint(0, 4, (3, 5))), (torch.randn(1, 5, 3), torch.randint(0, 4, (1, 5)))]


def probe_inputs():
    return other_inputs()

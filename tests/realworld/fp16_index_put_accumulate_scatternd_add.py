"""A float16 model that accumulates values with `Tensor.index_put_(indices, values, accumulate=True)` (the torchlib
`aten_index_put` case of this report): it exports, but ONNX Runtime's CPU provider fails with "MLFloat16 data type is
not supported with ScatterND opset 16 when reduction is 'add'". Here: summing half-precision token features into
per-bucket slots (a pooling head run in fp16).

Source: https://github.com/microsoft/onnxscript/pull/1298
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"feats": {0: "tokens"}, "bucket": {0: "tokens"}}
BLIND = "operators-22"


class BucketSumPoolFP16(nn.Module):
    def __init__(self, dim=16, num_buckets=8):
        super().__init__()
        self.num_buckets = num_buckets
        self.proj = nn.Linear(dim, dim).half()

    def forward(self, feats, bucket):
        h = self.proj(feats)
        out = torch.zeros(self.num_buckets, h.shape[1], dtype=h.dtype, device=h.device)
        out.index_put_((bucket,), h, accumulate=True)
        return out


def make_model():
    return BucketSumPoolFP16().eval()


def example_inputs():
    return (torch.randn(20, 16).half(), torch.randint(0, 8, (20,)))


def other_inputs():
    return [(torch.randn(33, 16).half(), torch.randint(0, 8, (33,))),
            (torch.randn(7, 16).half(), torch.randint(0, 8, (7,)))]


def probe_inputs():
    return other_inputs()

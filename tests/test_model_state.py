"""A forward that stores a tensor on the model (on a module, or on a plain object the module holds:
mmdet's bbox coders) stores torch.export's fake tensor there during the export; the eager
reference onnxruntime is compared with must still compute on real values (BEVFusion's decode:
"`.numpy()` is not supported for tensor subclasses" in the runtime stage)."""

from __future__ import annotations

import torch

from onnxfix.exporter.verify import verify


class Coder:  # not a module
    def __init__(self):
        self.bound = [0.5]
        self.memo = {}

    def clip(self, x):
        self.bound = torch.tensor(self.bound)
        self.memo[x.shape[1]] = torch.arange(x.shape[1])  # filled in place during the export
        return torch.minimum(x, self.bound) + self.memo[x.shape[1]]


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.coder = Coder()
        self.scale = 2.0

    def forward(self, x):
        self.last = torch.tensor([float(self.scale)])  # a module attribute set in forward
        return self.coder.clip(x) * self.last


def test_export_leaves_no_fake_tensor_on_the_model():
    model = Head().eval()
    x = torch.randn(3, 4)
    verdict = verify(lambda: model, (x,), [], "dynamo", {0: {0: "batch"}})
    assert verdict.verdict == "OK", verdict.error
    assert type(model.coder.bound) is torch.Tensor and type(model.last) is torch.Tensor
    assert all(type(v) is torch.Tensor for v in model.coder.memo.values())

"""Detection classification head that merges an auxiliary label space into the base classes with
`base.index_put((self.label_map,), aux, accumulate=True)`, where `label_map` is a constant index buffer over
the class rows (the identity order by default). The PR reports that onnxscript's default `ScatterAllStatic`
rewrite turns such a reducing ScatterND (constant indices covering the whole first dimension) into
`Identity(updates)`, so the default `torch.onnx.export(dynamo=True, optimize=True)` graph returns `aux` alone
(the `base` term is dropped).

Source: https://github.com/microsoft/onnxscript/pull/3049
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"feats": {0: "num_anchors"}}
BLIND = "operators-62"


class MergedLabelHead(nn.Module):
    def __init__(self, in_ch=32, num_classes=6, label_map=None):
        super().__init__()
        self.base_cls = nn.Linear(in_ch, num_classes)
        self.aux_cls = nn.Linear(in_ch, num_classes)
        # aux dataset label order -> base label order; identity when both datasets share the label order
        if label_map is None:
            label_map = torch.arange(num_classes)
        self.register_buffer("label_map", torch.as_tensor(label_map))

    def forward(self, feats):
        base = self.base_cls(feats).t()  # (C, N)
        aux = self.aux_cls(feats).t()    # (C, N)
        merged = base.index_put((self.label_map,), aux, accumulate=True)
        return merged.t().sigmoid()


def make_model():
    return MergedLabelHead().eval()


def example_inputs():
    return (torch.randn(50, 32),)


def other_inputs():
    return [(torch.randn(77, 32),), (torch.randn(9, 32),)]


def probe_inputs():
    return other_inputs()

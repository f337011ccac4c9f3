"""traininglib's patchwise connected-components labelling (segmentation post-processing) merges the per-patch
component labels that touch across patch borders: `_relabel` takes the labels equivalent to `i` and rewrites them
with `torch.isin(labelmap, equivalent_labels)`. The author's next commit replaced the call ("NOTE: torch.isin() is
not exportable to onnx") with a per-label `==` loop; the exporter has no symbolic for aten::isin.

Source: https://github.com/alexander-g/traininglib/commit/dc737eaa1ac84c915caa926d86a1e3260e72c0f8
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {
    "labelmap": {0: "batch", 2: "height", 3: "width"},
    "adjacency_list": {0: "pairs"},
    "adjacency_labels": {0: "pairs"},
}
BLIND = "operators-57"


# traininglib/segmentation/connectedcomponents.py (38781bc), one step of `_relabel` for the merged label `i`
@torch.jit.script_if_tracing
def _relabel_one(
    labelmap:         torch.Tensor,
    adjacency_list:   torch.Tensor,
    adjacency_labels: torch.Tensor,
    i:                torch.Tensor,
) -> torch.Tensor:
    new_labelmap = labelmap.clone()
    equivalent_labels = adjacency_list[(adjacency_labels == i)]
    mask = torch.isin(labelmap, equivalent_labels)
    new_labelmap[mask] = i
    return new_labelmap


class PatchwiseComponentMerge(nn.Module):
    """Merges component labels found in neighbouring patches into the label `i` of their group."""

    def forward(self, labelmap, adjacency_list, adjacency_labels, i):
        return _relabel_one(labelmap, adjacency_list, adjacency_labels, i)


def make_model():
    return PatchwiseComponentMerge().eval()


def _inputs(b, h, w, pairs):
    labelmap = torch.randint(0, 12, (b, 1, h, w))
    adjacency_list = torch.randint(0, 12, (pairs, 2))
    adjacency_labels = torch.randint(0, 3, (pairs, 2))
    return (labelmap, adjacency_list, adjacency_labels, torch.tensor(1))


def example_inputs():
    torch.manual_seed(0)
    return _inputs(1, 24, 32, 6)


def other_inputs():
    torch.manual_seed(1)
    return [_inputs(2, 40, 20, 9), _inputs(1, 17, 33, 4)]


def probe_inputs():
    return other_inputs()

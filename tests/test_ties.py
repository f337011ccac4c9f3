"""Generated probes drawn again where a topk or an unstable sort meets equal values."""

import torch

from onnxfix.exporter.result import ProbeResult
from onnxfix.exporter.ties import drawn_without_ties, tie_sensitive


class TopTwo(torch.nn.Module):
    def forward(self, scores, boxes):
        _, index = scores.topk(2)
        return boxes[index]


class TopValues(torch.nn.Module):
    def forward(self, scores, x):
        # only the values of the topk: the tie order changes nothing; the branch is the bug
        return scores.topk(2).values, x * 2 if x[0] > 0 else x


class Sorted(torch.nn.Module):
    def __init__(self, stable):
        super().__init__()
        self.stable = stable

    def forward(self, x):
        return torch.sort(x, stable=self.stable).indices


def test_ties_among_or_at_the_edge_of_the_selected_values():
    boxes = torch.arange(16.0).view(4, 4)
    assert tie_sensitive(TopTwo(), (torch.tensor([3.0, 3.0, 1.0, 0.0]), boxes)) == "torch.topk"
    assert tie_sensitive(TopTwo(), (torch.tensor([3.0, 2.0, 2.0, 0.0]), boxes)) == "torch.topk"  # the 2nd and the 3rd
    assert tie_sensitive(TopTwo(), (torch.tensor([3.0, 2.0, 1.0, 1.0]), boxes)) == ""  # below the selection
    assert tie_sensitive(Sorted(False), (torch.tensor([1.0, 0.0, 1.0]),)) == "torch.sort"
    assert tie_sensitive(Sorted(True), (torch.tensor([1.0, 0.0, 1.0]),)) == ""  # stable: the order is defined


def test_a_tie_the_outputs_depend_on():
    boxes = torch.arange(16.0).view(4, 4)
    assert tie_sensitive(TopTwo(), (torch.tensor([3.0, 3.0, 3.0, 0.0]), boxes)) == "torch.topk"
    # only the values read: broken either way, the outputs are the same
    assert tie_sensitive(TopValues(), (torch.tensor([3.0, 3.0, 3.0, 0.0]), torch.randn(3))) == ""
    assert tie_sensitive(TopTwo(), (torch.tensor([4.0, 3.0, 1.0, 0.0]), boxes)) == ""


def test_a_tied_draw_is_drawn_again_and_noted():
    boxes = torch.arange(16.0).view(4, 4)
    tied, untied = (torch.tensor([3.0, 3.0, 3.0, 0.0]), boxes), (torch.tensor([4.0, 3.0, 1.0, 0.0]), boxes)
    failed = ProbeResult("generated (other values)", ok=False, note="output 0: max abs error 2")
    checked = []
    result, drawn = drawn_without_ties(TopTwo(), tied, lambda attempt: untied,
                                       lambda args: checked.append(args) or ProbeResult("generated (other values)"), failed)
    assert checked == [untied] and result.ok and drawn is untied
    assert result.note == "drawn again: the first draw tied at torch.topk, whose tie order the outputs depend on"
    # no tie, a tie the outputs do not depend on, tied on every draw: the failure stands
    assert drawn_without_ties(TopTwo(), untied, lambda attempt: tied, lambda args: 1 / 0, failed) == (failed, untied)
    values = (torch.tensor([3.0, 3.0, 1.0, 0.0]), torch.ones(3))
    assert drawn_without_ties(TopValues(), values, lambda attempt: 1 / 0, lambda args: 1 / 0, failed) == (failed, values)
    assert drawn_without_ties(TopTwo(), tied, lambda attempt: tied, lambda args: 1 / 0, failed) == (failed, tied)

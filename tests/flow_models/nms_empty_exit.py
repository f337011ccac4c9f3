"""ONX610: torchvision's batched NMS offsets, called on the boxes a score threshold keeps, return
early when nothing is kept (`if boxes.numel() == 0:`). The dynamo exporter cannot decide the test
on a size read out of the data (GuardOnDataDependentSymNode); the legacy exporter exports the
general path of the export inputs. Fixed (unsafely: the exported model runs the general path for
an empty selection too) by taking the exit in eager only."""
import torch
from torch import nn


class KeepAndOffset(nn.Module):
    def __init__(self, score_thresh=0.05):
        super().__init__()
        self.score_thresh = score_thresh

    def forward(self, boxes, scores, labels):
        inds = torch.where(scores > self.score_thresh)[0]
        kept = boxes[inds]
        if kept.numel() == 0:
            return kept.new_zeros((0, 4)), scores.new_zeros((0,))
        offsets = labels[inds].to(kept) * (kept.max() + 1)
        return kept + offsets[:, None], scores[inds]


def make_model():
    return KeepAndOffset()


def _inputs(n, seed):
    generator = torch.Generator().manual_seed(seed)
    return (torch.rand(n, 4, generator=generator) * 100, torch.rand(n, generator=generator),
            torch.randint(0, 5, (n,), generator=generator))


def example_inputs():
    return _inputs(8, 0)


def probe_inputs():
    return [_inputs(12, 1), _inputs(5, 2)]


DYNAMIC = {0: {0: "n"}, 1: {0: "n"}, 2: {0: "n"}}

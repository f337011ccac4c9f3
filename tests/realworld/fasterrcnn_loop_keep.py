"""torchvision detection postprocess: per-detection Python loop over the kept boxes
(`for i in range(len(keep))`); "[torch.export] Cannot export TorchVision fasterrcnn_mobilenet_v3_large_fpn".

Source: https://github.com/pytorch/pytorch/issues/146152
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"boxes": {0: "n"}, "scores": {0: "n"}}


class Post(nn.Module):
    def forward(self, boxes, scores):
        keep = torch.where(scores > 0.05)[0]
        out = []
        for i in range(len(keep)):
            out.append(boxes[keep[i]] * scores[keep[i]])
        if not out:
            return boxes.new_zeros(0, 4)
        return torch.stack(out)


def make_model():
    return Post()


def example_inputs():
    return (torch.rand(6, 4), torch.rand(6))


def other_inputs():
    return [(torch.rand(9, 4), torch.rand(9)), (torch.rand(6, 4), torch.rand(6) * 0.04)]


def probe_inputs():
    return other_inputs()

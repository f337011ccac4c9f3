"""ONX205 on transformers' DETR post-processing, exported end to end: the caller passes the image size as
`target_sizes=[(height, width)]` and the processor rebuilds it as `torch.Tensor([i[0] for i in target_sizes])`
to scale the boxes. The legacy exporter records the export-time sizes as constants (silently wrong for
another image size); torch.export specializes them and the dynamic dims conflict. Fixed by a stack of 0-d
tensors built from each size, as `torch.Tensor` builds them (the default dtype, on the CPU)."""
from typing import List

import torch
from torch import nn


class Processor:
    def scale(self, boxes, target_sizes=None):
        if isinstance(target_sizes, List):
            img_h = torch.Tensor([i[0] for i in target_sizes])
            img_w = torch.Tensor([i[1] for i in target_sizes])
        else:
            img_h, img_w = target_sizes.unbind(1)
        return boxes * torch.stack([img_w, img_h, img_w, img_h], dim=1)[:, None, :]


class BoxScaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(3, 4, 3, stride=4)
        self.processor = Processor()

    def forward(self, image):
        height, width = image.shape[-2:]
        boxes = self.head(image).flatten(2).transpose(1, 2).sigmoid()[:, :5]
        return self.processor.scale(boxes, target_sizes=[(height, width)])


def make_model():
    torch.manual_seed(0)
    return BoxScaler()


def example_inputs():
    return (torch.randn(1, 3, 40, 48),)


def probe_inputs():
    return [(torch.randn(1, 3, 64, 36),), (torch.randn(1, 3, 24, 80),)]


DYNAMIC = {0: {2: "height", 3: "width"}}

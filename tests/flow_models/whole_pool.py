"""ONX408: global poolings whose window is read from the input (BiSeNet's attention refinement:
`F.avg_pool2d(feat, feat.size()[2:])`; a text CNN's `F.max_pool1d(h, h.size(2))`; MMOCR SAR's
max over the height per column, `F.max_pool2d(feat, kernel_size=(h_feat, 1), stride=1)`). Dynamo
specializes the spatial sizes (silently wrong for others); legacy cannot read the window. Fixed
(safely: eager runs the op) by `_onnx_whole_pool`, a mean / max over those axes while exporting."""
import torch
import torch.nn.functional as F
from torch import nn


class AttentionRefinement(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.conv_atten = nn.Conv2d(8, 8, 1)
        self.text = nn.Conv1d(8, 4, 3)

    def forward(self, x: torch.Tensor):
        feat = self.conv(x)
        atten = torch.sigmoid(self.conv_atten(F.avg_pool2d(feat, feat.size()[2:])))
        out = feat * atten
        h = self.text(out.flatten(2))
        h_feat = feat.size(2)
        columns = F.max_pool2d(feat, kernel_size=(h_feat, 1), stride=1, padding=0).squeeze(2)
        return out, F.max_pool1d(h, h.size(2)).squeeze(2), columns


def make_model():
    torch.manual_seed(0)
    return AttentionRefinement()


def example_inputs():
    return (torch.randn(2, 3, 12, 10),)


def probe_inputs():
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(3, 3, 9, 14, generator=g),), (torch.randn(1, 3, 16, 7, generator=g),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}

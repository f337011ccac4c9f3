"""ONX205 through a list of per-level sizes: RT-DETR's encoder input keeps each feature map's
`[h, w]` in `spatial_shapes`, and the anchor generator, another method, loops over it and
normalises by `torch.tensor([w, h])`. While the legacy exporter traces, that tensor is built
from Python numbers: a constant, silently wrong for other image sizes. Fixed safely by stacking
the sizes as tensors."""
import torch
from torch import nn


class LevelAnchors(nn.Module):
    def __init__(self):
        super().__init__()
        self.levels = nn.ModuleList([nn.Conv2d(3, 4, 4, stride=4), nn.Conv2d(4, 4, 2, stride=2)])
        self.head = nn.Linear(4, 4)

    def _encoder_input(self, feats):
        feat_flatten, spatial_shapes = [], []
        for feat in feats:
            _, _, h, w = feat.shape
            feat_flatten.append(feat.flatten(2).permute(0, 2, 1))
            spatial_shapes.append([h, w])
        return torch.concat(feat_flatten, 1), spatial_shapes

    def _generate_anchors(self, spatial_shapes, grid_size=0.05):
        anchors = []
        for lvl, (h, w) in enumerate(spatial_shapes):
            grid_y, grid_x = torch.meshgrid(torch.arange(end=h), torch.arange(end=w), indexing="ij")
            grid_xy = torch.stack([grid_x, grid_y], -1).float()
            valid_wh = torch.tensor([w, h]).to(torch.float32)
            grid_xy = (grid_xy.unsqueeze(0) + 0.5) / valid_wh
            wh = torch.ones_like(grid_xy) * grid_size * (2.0 ** lvl)
            anchors.append(torch.concat([grid_xy, wh], -1).reshape(-1, h * w, 4))
        return torch.concat(anchors, 1)

    def forward(self, images):
        feats, x = [], images
        for conv in self.levels:
            x = conv(x)
            feats.append(x)
        memory, spatial_shapes = self._encoder_input(feats)
        return self.head(memory) + self._generate_anchors(spatial_shapes)


def make_model():
    torch.manual_seed(0)
    return LevelAnchors()


def example_inputs():
    return (torch.randn(2, 3, 32, 24),)


def probe_inputs():
    return [(torch.randn(1, 3, 16, 40),), (torch.randn(3, 3, 48, 32),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}

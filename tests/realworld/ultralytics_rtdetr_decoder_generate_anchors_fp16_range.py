"""Ultralytics RT-DETR decoder exported in half precision: `_generate_anchors` builds the anchor grid per level with
`torch.arange(end=h, dtype=dtype, device=device)` where dtype is the (float16) feature dtype, so the ONNX graph
gets a `Range` on tensor(float16), which the ONNX type rules and TensorRT reject.

Source: https://github.com/ultralytics/ultralytics/issues/6700
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-26"


class RTDETRDecoderLite(nn.Module):
    def __init__(self, nc=4, ch=(16, 32), hd=32):
        super().__init__()
        self.hidden_dim = hd
        self.nl = len(ch)
        self.input_proj = nn.ModuleList(nn.Sequential(nn.Conv2d(x, hd, 1, bias=False), nn.BatchNorm2d(hd)) for x in ch)
        self.enc_output = nn.Sequential(nn.Linear(hd, hd), nn.LayerNorm(hd))
        self.enc_score_head = nn.Linear(hd, nc)
        self.enc_bbox_head = nn.Linear(hd, 4)

    def _get_encoder_input(self, x):
        """Processes and returns encoder inputs by getting projection features from input and concatenating them."""
        # Get projection features
        x = [self.input_proj[i](feat) for i, feat in enumerate(x)]
        # Get encoder inputs
        feats = []
        shapes = []
        for feat in x:
            h, w = feat.shape[2:]
            # [b, c, h, w] -> [b, h*w, c]
            feats.append(feat.flatten(2).permute(0, 2, 1))
            # [nl, 2]
            shapes.append([h, w])

        # [b, h*w, c]
        feats = torch.cat(feats, 1)
        return feats, shapes

    def _generate_anchors(self, shapes, grid_size=0.05, dtype=torch.float32, device="cpu", eps=1e-2):
        """Generates anchor bounding boxes for given shapes with specific grid size and validates them."""
        anchors = []
        for i, (h, w) in enumerate(shapes):
            sy = torch.arange(end=h, dtype=dtype, device=device)
            sx = torch.arange(end=w, dtype=dtype, device=device)
            grid_y, grid_x = torch.meshgrid(sy, sx, indexing="ij")
            grid_xy = torch.stack([grid_x, grid_y], -1)  # (h, w, 2)

            valid_WH = torch.tensor([w, h], dtype=dtype, device=device)
            grid_xy = (grid_xy.unsqueeze(0) + 0.5) / valid_WH  # (1, h, w, 2)
            wh = torch.ones_like(grid_xy, dtype=dtype, device=device) * grid_size * (2.0**i)
            anchors.append(torch.cat([grid_xy, wh], -1).view(-1, h * w, 4))  # (1, h*w, 4)

        anchors = torch.cat(anchors, 1)  # (1, h*w*nl, 4)
        valid_mask = ((anchors > eps) & (anchors < 1 - eps)).all(-1, keepdim=True)  # 1, h*w*nl, 1
        anchors = torch.log(anchors / (1 - anchors))
        anchors = anchors.masked_fill(~valid_mask, float("inf"))
        return anchors, valid_mask

    def forward(self, x):
        # two pyramid levels from the backbone/neck: (b, 16, h, w) and (b, 32, h/2, w/2)
        feats, shapes = self._get_encoder_input([x[:, :16], nn.functional.max_pool2d(x, 2)])
        bs = feats.shape[0]
        anchors, valid_mask = self._generate_anchors(shapes, dtype=feats.dtype, device=feats.device)
        features = self.enc_output(valid_mask * feats)  # bs, h*w, 256
        enc_outputs_scores = self.enc_score_head(features)  # (bs, h*w, nc)
        refer_bbox = self.enc_bbox_head(features) + anchors.repeat(bs, 1, 1)
        return refer_bbox.sigmoid(), enc_outputs_scores


def make_model():
    return RTDETRDecoderLite().half().eval()


def example_inputs():
    return (torch.randn(1, 32, 16, 16, dtype=torch.float16),)


def other_inputs():
    return [(torch.randn(2, 32, 12, 20, dtype=torch.float16),), (torch.randn(3, 32, 8, 10, dtype=torch.float16),)]


def probe_inputs():
    return other_inputs()

"""kornia's RT-DETR port (head "based on code from PaddleDetection ... rtdetr_transformer.py"): the
encoder-side query selection rebuilds anchors every call in `generate_anchors`, from kornia's
`create_meshgrid(H, W)` (`torch.linspace(0, width - 1, width)`) normalized by
`torch.tensor([H, W], device=device, dtype=dtype)`, both built from each level's feature-map size. PR #2548
("fixes for rt-detr onnx") swaps them for an arange meshgrid and `wh = torch.empty(2); wh[0] = w; wh[1] = h`
("this satisfies onnx export"): as written, the anchors are frozen at the export image size.

Source: https://github.com/kornia/kornia/pull/2548
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn, Tensor

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {
    "p3": {0: "batch", 2: "h8", 3: "w8"},
    "p4": {0: "batch", 2: "h16", 3: "w16"},
    "p5": {0: "batch", 2: "h32", 3: "w32"},
}
BLIND = "domains-86"


def create_meshgrid(height, width, normalized_coordinates=True, device=torch.device('cpu'), dtype=torch.float32):
    xs: Tensor = torch.linspace(0, width - 1, width, device=device, dtype=dtype)
    ys: Tensor = torch.linspace(0, height - 1, height, device=device, dtype=dtype)
    if normalized_coordinates:
        xs = (xs / (width - 1) - 0.5) * 2
        ys = (ys / (height - 1) - 0.5) * 2
    base_grid: Tensor = torch.stack(torch.meshgrid([xs, ys], indexing="ij"), dim=-1)  # WxHx2
    return base_grid.permute(1, 0, 2).unsqueeze(0)  # 1xHxWx2


class ConvNormAct(nn.Sequential):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, act="relu", groups=1):
        super().__init__()
        padding = (kernel_size - 1) // 2
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, 1, groups, False)
        self.norm = nn.BatchNorm2d(out_channels)
        self.act = {"relu": nn.ReLU, "silu": nn.SiLU, "none": nn.Identity}[act](inplace=True)


class MLP(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim, num_layers):
        super().__init__()
        self.num_layers = num_layers
        h = [hidden_dim] * (num_layers - 1)
        self.layers = nn.ModuleList(nn.Linear(n, k) for n, k in zip([input_dim, *h], [*h, output_dim]))

    def forward(self, x: Tensor) -> Tensor:
        for i, layer in enumerate(self.layers):
            x = F.relu(layer(x)) if i < self.num_layers - 1 else layer(x)
        return x


class RTDETRHead(nn.Module):
    """Encoder output + top-k query selection of the head (the deformable decoder layers are left out)."""

    def __init__(self, num_classes=5, hidden_dim=32, num_queries=50, in_channels=(16, 24, 32)):
        super().__init__()
        self.num_queries = num_queries
        self.input_proj = nn.ModuleList()
        for ch_in in in_channels:
            self.input_proj.append(ConvNormAct(ch_in, hidden_dim, 1, act="none"))
        self.enc_output = nn.Sequential(nn.Linear(hidden_dim, hidden_dim), nn.LayerNorm(hidden_dim))
        self.enc_score_head = nn.Linear(hidden_dim, num_classes)
        self.enc_bbox_head = MLP(hidden_dim, hidden_dim, 4, 3)

    def forward(self, p3, p4, p5):
        fmaps = [p3, p4, p5]
        N = fmaps[0].shape[0]
        fmaps = [proj(fmap) for proj, fmap in zip(self.input_proj, fmaps)]
        spatial_shapes = [(fmap.shape[2], fmap.shape[3]) for fmap in fmaps]

        feats = [fmap.flatten(2).permute(0, 2, 1) for fmap in fmaps]  # (N, C, H, W) -> (N, H*W, C)
        memory = torch.cat(feats, 1)  # rename to match original impl

        # TODO: cache anchors and valid_mask as buffers
        anchors, valid_mask = self.generate_anchors(spatial_shapes, device=memory.device, dtype=memory.dtype)

        zero = torch.zeros([], device=memory.device, dtype=memory.dtype)
        out_memory = torch.where(valid_mask, memory, zero)
        out_memory = self.enc_output(out_memory)

        enc_out_logits = self.enc_score_head(out_memory)
        enc_out_bboxes = anchors + self.enc_bbox_head(out_memory)

        # only consider class with highest score at each spatial location
        _, topk_indices = enc_out_logits.max(-1)[0].topk(self.num_queries, 1)  # (N, num_queries)
        batch_indices = torch.arange(N, dtype=topk_indices.dtype, device=topk_indices.device).unsqueeze(1)
        ref_points = enc_out_bboxes[batch_indices, topk_indices]
        logits = enc_out_logits[batch_indices, topk_indices]
        return logits, ref_points.sigmoid()

    @staticmethod
    def generate_anchors(spatial_shapes, grid_size=0.05, eps=0.01, device=None, dtype=torch.float32):
        anchors_list = []
        for i, (H, W) in enumerate(spatial_shapes):
            grid_xy = create_meshgrid(H, W, normalized_coordinates=False, device=device, dtype=dtype)
            grid_xy = (grid_xy + 0.5) / torch.tensor([H, W], device=device, dtype=dtype)
            wh = torch.ones_like(grid_xy) * grid_size * 2**i
            anchors_list.append(torch.cat([grid_xy, wh], -1).reshape(-1, H * W, 4))

        anchors = torch.cat(anchors_list, 1)
        valid_mask = ((anchors > eps) & (anchors < 1 - eps)).all(-1, keepdim=True)
        anchors = torch.log(anchors / (1 - anchors))  # anchors.logit() fails ONNX export

        inf = torch.tensor(float('inf'), device=device, dtype=dtype)
        anchors = torch.where(valid_mask, anchors, inf)
        return anchors, valid_mask


def make_model():
    return RTDETRHead().eval()


def _feats(b, h, w):
    return (torch.randn(b, 16, h // 8, w // 8), torch.randn(b, 24, h // 16, w // 16), torch.randn(b, 32, h // 32, w // 32))


def example_inputs():
    return _feats(2, 128, 160)


def other_inputs():
    return [_feats(1, 160, 96), _feats(3, 96, 224)]


def probe_inputs():
    return other_inputs()

"""RT-DETR's NMS-free decoder input: with `eval_spatial_size` unset (the maintainer's advice for variable image
sizes) the anchors are regenerated per call by `_generate_anchors(spatial_shapes)`, which loops over the
levels' Python `[h, w]` pairs and normalises the grid with `valid_WH = torch.tensor([w, h])`; the report says
exporting to ONNX with dynamic width and height still does not work.

Source: https://github.com/lyuwenyu/RT-DETR/issues/237
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-4"


class MLP(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim, num_layers):
        super().__init__()
        self.num_layers = num_layers
        h = [hidden_dim] * (num_layers - 1)
        self.layers = nn.ModuleList(nn.Linear(n, k) for n, k in zip([input_dim] + h, h + [output_dim]))

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = F.relu(layer(x)) if i < self.num_layers - 1 else layer(x)
        return x


class RTDETRTransformer(nn.Module):
    def __init__(self, num_classes=5, hidden_dim=16, num_queries=10, feat_channels=(8, 8, 8),
                 eval_spatial_size=None, eps=1e-2):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.num_queries = num_queries
        self.eps = eps
        self.eval_spatial_size = eval_spatial_size
        self.backbone = nn.ModuleList([nn.Conv2d(3, 8, 8, stride=8), nn.Conv2d(8, 8, 2, stride=2),
                                       nn.Conv2d(8, 8, 2, stride=2)])
        self.input_proj = nn.ModuleList(nn.Conv2d(c, hidden_dim, 1, bias=False) for c in feat_channels)
        self.enc_output = nn.Sequential(nn.Linear(hidden_dim, hidden_dim), nn.LayerNorm(hidden_dim))
        self.enc_score_head = nn.Linear(hidden_dim, num_classes)
        self.enc_bbox_head = MLP(hidden_dim, hidden_dim, 4, num_layers=3)

    def _get_encoder_input(self, feats):
        proj_feats = [self.input_proj[i](feat) for i, feat in enumerate(feats)]
        feat_flatten = []
        spatial_shapes = []
        level_start_index = [0, ]
        for i, feat in enumerate(proj_feats):
            _, _, h, w = feat.shape
            # [b, c, h, w] -> [b, h*w, c]
            feat_flatten.append(feat.flatten(2).permute(0, 2, 1))
            # [num_levels, 2]
            spatial_shapes.append([h, w])
            # [l], start index of each level
            level_start_index.append(h * w + level_start_index[-1])
        feat_flatten = torch.concat(feat_flatten, 1)
        level_start_index.pop()
        return (feat_flatten, spatial_shapes, level_start_index)

    def _generate_anchors(self, spatial_shapes=None, grid_size=0.05, dtype=torch.float32, device='cpu'):
        anchors = []
        for lvl, (h, w) in enumerate(spatial_shapes):
            grid_y, grid_x = torch.meshgrid(
                torch.arange(end=h, dtype=dtype),
                torch.arange(end=w, dtype=dtype), indexing='ij')
            grid_xy = torch.stack([grid_x, grid_y], -1)
            valid_WH = torch.tensor([w, h]).to(dtype)
            grid_xy = (grid_xy.unsqueeze(0) + 0.5) / valid_WH
            wh = torch.ones_like(grid_xy) * grid_size * (2.0 ** lvl)
            anchors.append(torch.concat([grid_xy, wh], -1).reshape(-1, h * w, 4))

        anchors = torch.concat(anchors, 1).to(device)
        valid_mask = ((anchors > self.eps) * (anchors < 1 - self.eps)).all(-1, keepdim=True)
        anchors = torch.log(anchors / (1 - anchors))
        anchors = torch.where(valid_mask, anchors, torch.inf)
        return anchors, valid_mask

    def _get_decoder_input(self, memory, spatial_shapes):
        if self.training or self.eval_spatial_size is None:
            anchors, valid_mask = self._generate_anchors(spatial_shapes, device=memory.device)
        else:
            anchors, valid_mask = self.anchors.to(memory.device), self.valid_mask.to(memory.device)

        memory = valid_mask.to(memory.dtype) * memory
        output_memory = self.enc_output(memory)
        enc_outputs_class = self.enc_score_head(output_memory)
        enc_outputs_coord_unact = self.enc_bbox_head(output_memory) + anchors

        _, topk_ind = torch.topk(enc_outputs_class.max(-1).values, self.num_queries, dim=1)
        reference_points_unact = enc_outputs_coord_unact.gather(
            dim=1, index=topk_ind.unsqueeze(-1).repeat(1, 1, enc_outputs_coord_unact.shape[-1]))
        enc_topk_bboxes = F.sigmoid(reference_points_unact)
        enc_topk_logits = enc_outputs_class.gather(
            dim=1, index=topk_ind.unsqueeze(-1).repeat(1, 1, enc_outputs_class.shape[-1]))
        return enc_topk_bboxes, enc_topk_logits

    def forward(self, images):
        feats, x = [], images
        for conv in self.backbone:
            x = conv(x)
            feats.append(x)
        memory, spatial_shapes, level_start_index = self._get_encoder_input(feats)
        return self._get_decoder_input(memory, spatial_shapes)


def make_model():
    return RTDETRTransformer().eval()


def example_inputs():
    return (torch.randn(1, 3, 96, 128),)


def other_inputs():
    return [(torch.randn(2, 3, 128, 64),), (torch.randn(3, 3, 64, 160),)]


def probe_inputs():
    return other_inputs()

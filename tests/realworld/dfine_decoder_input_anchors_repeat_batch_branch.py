"""D-FINE (real-time DETR) decoder input: with `eval_spatial_size` set, the anchors/valid_mask buffers have batch 1
and `_get_decoder_input` only tiles them when `if memory.shape[0] > 1:`; the report exported with a batch-1
dummy and dynamic batch, and onnxruntime then fails at batch 4 in `/model/decoder/GatherElements` ("'indices'
shape should have values within bounds of 'data' shape").

Source: https://github.com/Peterande/D-FINE/issues/50
"""
from collections import OrderedDict

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"images": {0: "batch"}}
BLIND = "domains-24"


class MLP(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim, num_layers):
        super().__init__()
        h = [hidden_dim] * (num_layers - 1)
        self.layers = nn.ModuleList(nn.Linear(n, k) for n, k in zip([input_dim] + h, h + [output_dim]))
        self.num_layers = num_layers

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = F.relu(layer(x)) if i < self.num_layers - 1 else layer(x)
        return x


class DFINEDecoderInput(nn.Module):
    def __init__(self, hidden_dim=32, num_classes=5, num_queries=10, feat_strides=(8, 16, 32),
                 eval_spatial_size=(64, 64), eps=1e-2):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.num_queries = num_queries
        self.feat_strides = list(feat_strides)
        self.eval_spatial_size = eval_spatial_size
        self.eps = eps
        self.query_select_method = 'default'
        self.learn_query_content = False
        # stand-in backbone + encoder: one feature map per stride
        self.backbone = nn.ModuleList(nn.Conv2d(3, 16, s, s) for s in self.feat_strides)
        self.input_proj = nn.ModuleList(
            nn.Sequential(OrderedDict([('conv', nn.Conv2d(16, hidden_dim, 1, bias=False)),
                                       ('norm', nn.BatchNorm2d(hidden_dim))]))
            for _ in self.feat_strides)
        self.enc_output = nn.Sequential(OrderedDict([('proj', nn.Linear(hidden_dim, hidden_dim)),
                                                     ('norm', nn.LayerNorm(hidden_dim))]))
        self.enc_score_head = nn.Linear(hidden_dim, num_classes)
        self.enc_bbox_head = MLP(hidden_dim, hidden_dim, 4, 3)
        if self.eval_spatial_size:
            anchors, valid_mask = self._generate_anchors()
            self.register_buffer('anchors', anchors)
            self.register_buffer('valid_mask', valid_mask)

    def _get_encoder_input(self, feats):
        proj_feats = [self.input_proj[i](feat) for i, feat in enumerate(feats)]
        feat_flatten = []
        spatial_shapes = []
        for i, feat in enumerate(proj_feats):
            _, _, h, w = feat.shape
            feat_flatten.append(feat.flatten(2).permute(0, 2, 1))
            spatial_shapes.append([h, w])
        feat_flatten = torch.concat(feat_flatten, 1)
        return feat_flatten, spatial_shapes

    def _generate_anchors(self, spatial_shapes=None, grid_size=0.05, dtype=torch.float32, device='cpu'):
        if spatial_shapes is None:
            spatial_shapes = []
            eval_h, eval_w = self.eval_spatial_size
            for s in self.feat_strides:
                spatial_shapes.append([int(eval_h / s), int(eval_w / s)])
        anchors = []
        for lvl, (h, w) in enumerate(spatial_shapes):
            grid_y, grid_x = torch.meshgrid(torch.arange(h), torch.arange(w), indexing='ij')
            grid_xy = torch.stack([grid_x, grid_y], dim=-1)
            grid_xy = (grid_xy.unsqueeze(0) + 0.5) / torch.tensor([w, h], dtype=dtype)
            wh = torch.ones_like(grid_xy) * grid_size * (2.0 ** lvl)
            lvl_anchors = torch.concat([grid_xy, wh], dim=-1).reshape(-1, h * w, 4)
            anchors.append(lvl_anchors)
        anchors = torch.concat(anchors, dim=1).to(device)
        valid_mask = ((anchors > self.eps) * (anchors < 1 - self.eps)).all(-1, keepdim=True)
        anchors = torch.log(anchors / (1 - anchors))
        anchors = torch.where(valid_mask, anchors, torch.inf)
        return anchors, valid_mask

    def _select_topk(self, memory, outputs_logits, outputs_anchors_unact, topk):
        _, topk_ind = torch.topk(outputs_logits.max(-1).values, topk, dim=-1)
        topk_anchors = outputs_anchors_unact.gather(dim=1, \
            index=topk_ind.unsqueeze(-1).repeat(1, 1, outputs_anchors_unact.shape[-1]))
        topk_memory = memory.gather(dim=1, \
            index=topk_ind.unsqueeze(-1).repeat(1, 1, memory.shape[-1]))
        return topk_memory, None, topk_anchors

    def _get_decoder_input(self, memory, spatial_shapes):
        if self.training or self.eval_spatial_size is None:
            anchors, valid_mask = self._generate_anchors(spatial_shapes, device=memory.device)
        else:
            anchors = self.anchors
            valid_mask = self.valid_mask
        if memory.shape[0] > 1:
            anchors = anchors.repeat(memory.shape[0], 1, 1)

        memory = valid_mask.to(memory.dtype) * memory
        output_memory = self.enc_output(memory)
        enc_outputs_logits = self.enc_score_head(output_memory)
        enc_topk_memory, enc_topk_logits, enc_topk_anchors = \
            self._select_topk(output_memory, enc_outputs_logits, anchors, self.num_queries)
        enc_topk_bbox_unact = self.enc_bbox_head(enc_topk_memory) + enc_topk_anchors
        content = enc_topk_memory.detach()
        enc_topk_bbox_unact = enc_topk_bbox_unact.detach()
        return content, enc_topk_bbox_unact

    def forward(self, images):
        feats = [conv(images) for conv in self.backbone]
        memory, spatial_shapes = self._get_encoder_input(feats)
        content, ref_points_unact = self._get_decoder_input(memory, spatial_shapes)
        return content, F.sigmoid(ref_points_unact)


def make_model():
    return DFINEDecoderInput().eval()


def example_inputs():
    # the report's export_onnx.py dummy: batch 1
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(4, 3, 64, 64),), (torch.randn(2, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()

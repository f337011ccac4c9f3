"""mmdetection 2.x DETRHead.forward_single builds the transformer padding mask with a per-image Python loop,
`masks = x.new_ones((batch_size, input_img_h, input_img_w))` then `for img_id in range(batch_size): ...
masks[img_id, :img_h, :img_w] = 0`, with the shapes taken from img_metas (set from `img.size()[-2:]` by
BaseDetector.forward_test). mmdeploy's DETR support PR rewrote forward_single to "ease the mask computation"
(`masks = x.new_zeros((batch_size, x.size(-2), x.size(-1)))`) because the loop and sizes do not export with
dynamic batch / image size. (The transformer is a one-layer cross-attention stand-in.)

Source: https://github.com/open-mmlab/mmdeploy/pull/924
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-56"


class SinePositionalEncoding(nn.Module):
    def __init__(self, num_feats, temperature=10000, normalize=True, scale=2 * math.pi, eps=1e-6, offset=0.):
        super().__init__()
        self.num_feats = num_feats
        self.temperature = temperature
        self.normalize = normalize
        self.scale = scale
        self.eps = eps
        self.offset = offset

    def forward(self, mask):
        mask = mask.to(torch.int)
        not_mask = 1 - mask  # logical_not
        y_embed = not_mask.cumsum(1, dtype=torch.float32)
        x_embed = not_mask.cumsum(2, dtype=torch.float32)
        if self.normalize:
            y_embed = (y_embed + self.offset) / (y_embed[:, -1:, :] + self.eps) * self.scale
            x_embed = (x_embed + self.offset) / (x_embed[:, :, -1:] + self.eps) * self.scale
        dim_t = torch.arange(self.num_feats, dtype=torch.float32, device=mask.device)
        dim_t = self.temperature**(2 * (dim_t // 2) / self.num_feats)
        pos_x = x_embed[:, :, :, None] / dim_t
        pos_y = y_embed[:, :, :, None] / dim_t
        B, H, W = mask.size()
        pos_x = torch.stack((pos_x[:, :, :, 0::2].sin(), pos_x[:, :, :, 1::2].cos()), dim=4).view(B, H, W, -1)
        pos_y = torch.stack((pos_y[:, :, :, 0::2].sin(), pos_y[:, :, :, 1::2].cos()), dim=4).view(B, H, W, -1)
        pos = torch.cat((pos_y, pos_x), dim=3).permute(0, 3, 1, 2)
        return pos


class Transformer(nn.Module):
    """Stand-in for mmdet's DETR Transformer: one cross-attention layer of the queries over the memory."""

    def __init__(self, embed_dims):
        super().__init__()
        self.attn = nn.MultiheadAttention(embed_dims, 4)

    def forward(self, x, mask, query_embed, pos_embed):
        bs, c, h, w = x.shape
        memory = (x + pos_embed).view(bs, c, -1).permute(2, 0, 1)
        query = query_embed.unsqueeze(1).repeat(1, bs, 1)
        mask = mask.view(bs, -1)
        out, _ = self.attn(query, memory, x.view(bs, c, -1).permute(2, 0, 1), key_padding_mask=mask)
        return out.transpose(0, 1).unsqueeze(0), memory


class DETRHead(nn.Module):
    def __init__(self, num_classes=5, in_channels=16, embed_dims=32, num_query=10):
        super().__init__()
        self.input_proj = nn.Conv2d(in_channels, embed_dims, kernel_size=1)
        self.positional_encoding = SinePositionalEncoding(embed_dims // 2)
        self.transformer = Transformer(embed_dims)
        self.query_embedding = nn.Embedding(num_query, embed_dims)
        self.fc_cls = nn.Linear(embed_dims, num_classes + 1)
        self.reg_ffn = nn.Linear(embed_dims, embed_dims)
        self.activate = nn.ReLU(inplace=True)
        self.fc_reg = nn.Linear(embed_dims, 4)

    def forward_single(self, x, img_metas):
        # construct binary masks which used for the transformer.
        # NOTE following the official DETR repo, non-zero values representing
        # ignored positions, while zero values means valid positions.
        batch_size = x.size(0)
        input_img_h, input_img_w = img_metas[0]['batch_input_shape']
        masks = x.new_ones((batch_size, input_img_h, input_img_w))
        for img_id in range(batch_size):
            img_h, img_w, _ = img_metas[img_id]['img_shape']
            masks[img_id, :img_h, :img_w] = 0

        x = self.input_proj(x)
        # interpolate masks to have the same spatial shape with x
        masks = F.interpolate(
            masks.unsqueeze(1), size=x.shape[-2:]).to(torch.bool).squeeze(1)
        # position encoding
        pos_embed = self.positional_encoding(masks)  # [bs, embed_dim, h, w]
        # outs_dec: [nb_dec, bs, num_query, embed_dim]
        outs_dec, _ = self.transformer(x, masks, self.query_embedding.weight,
                                       pos_embed)

        all_cls_scores = self.fc_cls(outs_dec)
        all_bbox_preds = self.fc_reg(self.activate(
            self.reg_ffn(outs_dec))).sigmoid()
        return all_cls_scores, all_bbox_preds


class DETR(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=4, padding=1), nn.ReLU(),
                                      nn.Conv2d(16, 16, 3, stride=2, padding=1))
        self.bbox_head = DETRHead()

    def forward(self, img):
        img_metas = [dict(img_shape=(img.size(2), img.size(3), 3)) for _ in range(img.size(0))]
        batch_size = len(img_metas)
        for img_id in range(batch_size):
            img_metas[img_id]['batch_input_shape'] = tuple(img.size()[-2:])
        x = self.backbone(img)
        all_cls_scores, all_bbox_preds = self.bbox_head.forward_single(x, img_metas)
        return all_cls_scores[-1], all_bbox_preds[-1]


def make_model():
    return DETR().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 96),)


def other_inputs():
    return [(torch.randn(3, 3, 80, 64),), (torch.randn(1, 3, 48, 112),)]


def probe_inputs():
    return other_inputs()

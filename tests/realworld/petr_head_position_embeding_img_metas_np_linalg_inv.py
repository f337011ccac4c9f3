"""PETR (multi-view 3D detection) head: `PETRHead.position_embeding` builds the 3D position embedding from the
camera matrices in `img_metas`, inverting each `img_meta['lidar2img'][i]` with `np.linalg.inv` and packing them with
`np.asarray` / `coords.new_tensor(img2lidars)`; `forward` also fills the padding masks in a Python loop over
`img_metas[img_id]['img_shape'][cam_id]`. NVIDIA DL4AGX's petr-trt export replaces `PETRHead.forward` for ONNX
export with one that reads a precomputed `coords_position_embeding` and constant masks, since the NumPy inverse is
frozen into the graph as a constant.

Source: https://github.com/NVIDIA/DL4AGX/blob/0699eb427c8088da572d497951108ce25b1435e4/AV-Solutions/petr-trt/export_eval/v1/v1_patch.py
"""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "numpy"
FAMILY = "numpy_interop"
DYNAMIC = {"img_feat": {0: "batch"}, "lidar2img": {0: "batch"}}
BLIND = "domains-58"


def inverse_sigmoid(x, eps=1e-5):
    x = x.clamp(min=0, max=1)
    x1 = x.clamp(min=eps)
    x2 = (1 - x).clamp(min=eps)
    return torch.log(x1 / x2)


class PETRHead(nn.Module):
    def __init__(self, in_channels=16, embed_dims=32, depth_num=8, num_query=20, num_classes=10):
        super().__init__()
        self.embed_dims = embed_dims
        self.depth_num = depth_num
        self.depth_start = 1
        self.position_level = 0
        self.LID = True
        self.position_range = [-61.2, -61.2, -10.0, 61.2, 61.2, 10.0]
        self.input_proj = nn.Conv2d(in_channels, embed_dims, kernel_size=1)
        self.position_encoder = nn.Sequential(
            nn.Conv2d(depth_num * 3, embed_dims * 4, kernel_size=1), nn.ReLU(),
            nn.Conv2d(embed_dims * 4, embed_dims, kernel_size=1))
        self.query = nn.Parameter(torch.randn(num_query, embed_dims))
        self.cls_branch = nn.Linear(embed_dims, num_classes)

    def position_embeding(self, img_feats, img_metas, masks=None):
        eps = 1e-5
        pad_h, pad_w, _ = img_metas[0]['pad_shape'][0]
        B, N, C, H, W = img_feats[self.position_level].shape
        coords_h = torch.arange(H, device=img_feats[0].device).float() * pad_h / H
        coords_w = torch.arange(W, device=img_feats[0].device).float() * pad_w / W

        if self.LID:
            index = torch.arange(start=0, end=self.depth_num, step=1, device=img_feats[0].device).float()
            index_1 = index + 1
            bin_size = (self.position_range[3] - self.depth_start) / (self.depth_num * (1 + self.depth_num))
            coords_d = self.depth_start + bin_size * index * index_1
        else:
            index = torch.arange(start=0, end=self.depth_num, step=1, device=img_feats[0].device).float()
            bin_size = (self.position_range[3] - self.depth_start) / self.depth_num
            coords_d = self.depth_start + bin_size * index

        D = coords_d.shape[0]
        coords = torch.stack(torch.meshgrid([coords_w, coords_h, coords_d])).permute(1, 2, 3, 0)  # W, H, D, 3
        coords = torch.cat((coords, torch.ones_like(coords[..., :1])), -1)
        coords[..., :2] = coords[..., :2] * torch.maximum(coords[..., 2:3], torch.ones_like(coords[..., 2:3]) * eps)

        img2lidars = []
        for img_meta in img_metas:
            img2lidar = []
            for i in range(len(img_meta['lidar2img'])):
                img2lidar.append(np.linalg.inv(img_meta['lidar2img'][i]))
            img2lidars.append(np.asarray(img2lidar))
        img2lidars = np.asarray(img2lidars)
        img2lidars = coords.new_tensor(img2lidars)  # (B, N, 4, 4)

        coords = coords.view(1, 1, W, H, D, 4, 1).repeat(B, N, 1, 1, 1, 1, 1)
        img2lidars = img2lidars.view(B, N, 1, 1, 1, 4, 4).repeat(1, 1, W, H, D, 1, 1)
        coords3d = torch.matmul(img2lidars, coords).squeeze(-1)[..., :3]
        coords3d[..., 0:1] = (coords3d[..., 0:1] - self.position_range[0]) / (self.position_range[3] - self.position_range[0])
        coords3d[..., 1:2] = (coords3d[..., 1:2] - self.position_range[1]) / (self.position_range[4] - self.position_range[1])
        coords3d[..., 2:3] = (coords3d[..., 2:3] - self.position_range[2]) / (self.position_range[5] - self.position_range[2])

        coords_mask = (coords3d > 1.0) | (coords3d < 0.0)
        coords_mask = coords_mask.flatten(-2).sum(-1) > (D * 0.5)
        coords_mask = masks | coords_mask.permute(0, 1, 3, 2)
        coords3d = coords3d.permute(0, 1, 4, 5, 3, 2).contiguous().view(B * N, -1, H, W)
        coords3d = inverse_sigmoid(coords3d)
        coords_position_embeding = self.position_encoder(coords3d)

        return coords_position_embeding.view(B, N, self.embed_dims, H, W), coords_mask

    def forward(self, mlvl_feats, img_metas):
        x = mlvl_feats[0]
        batch_size, num_cams = x.size(0), x.size(1)
        input_img_h, input_img_w, _ = img_metas[0]['pad_shape'][0]
        masks = x.new_ones((batch_size, num_cams, input_img_h, input_img_w))
        for img_id in range(batch_size):
            for cam_id in range(num_cams):
                img_h, img_w, _ = img_metas[img_id]['img_shape'][cam_id]
                masks[img_id, cam_id, :img_h, :img_w] = 0
        x = self.input_proj(x.flatten(0, 1))
        x = x.view(batch_size, num_cams, *x.shape[-3:])
        # interpolate masks to have the same spatial shape with x
        masks = F.interpolate(masks, size=x.shape[-2:]).to(torch.bool)

        coords_position_embeding, _ = self.position_embeding(mlvl_feats, img_metas, masks)
        pos_embed = coords_position_embeding

        # stand-in for the PETR transformer decoder: queries attend to the position-aware features
        memory = (x + pos_embed).masked_fill(masks.unsqueeze(2), 0).permute(0, 1, 3, 4, 2).flatten(1, 3)
        attn = torch.softmax(self.query @ memory.transpose(1, 2) / self.embed_dims ** 0.5, dim=-1)
        return self.cls_branch(attn @ memory)


class PETRExport(nn.Module):
    """What the user exports: camera features plus the lidar2img matrices that mmdet3d puts in img_metas."""

    def __init__(self):
        super().__init__()
        self.pts_bbox_head = PETRHead()

    def forward(self, img_feat, lidar2img):
        img_metas = [dict(lidar2img=lidar2img[b], pad_shape=[(64, 128, 3)] * lidar2img.shape[1],
                          img_shape=[(60, 120, 3)] * lidar2img.shape[1]) for b in range(lidar2img.shape[0])]
        return self.pts_bbox_head([img_feat], img_metas)


def make_model():
    return PETRExport().eval()


def _lidar2img(b, n=3):
    m = torch.eye(4).repeat(b, n, 1, 1)
    m[..., :3, :3] += 0.1 * torch.randn(b, n, 3, 3)
    m[..., :3, 3] = torch.randn(b, n, 3)
    return m


def example_inputs():
    return (torch.randn(2, 3, 16, 4, 8), _lidar2img(2))


def other_inputs():
    return [(torch.randn(3, 3, 16, 4, 8), _lidar2img(3)), (torch.randn(1, 3, 16, 4, 8), _lidar2img(1))]


def probe_inputs():
    return other_inputs()

"""StreamPETR (camera-only 3D detection on mmdet3d): the head keeps its temporal memory queue in plain module
attributes (`self.memory_embedding`, `self.memory_reference_point`, `self.memory_timestamp`, `self.memory_egopose`,
`self.memory_velo`), created on the first frame in `pre_update_memory` (`if self.memory_embedding is None`), aged and
ego-motion-compensated on the next frames and refilled with the top-k decoded queries in `post_update_memory`.
NVIDIA's StreamPETR TensorRT export wraps the head (TrtPtsHeadContainer) so that the five memory tensors become
explicit ONNX inputs ("pre_memory_*") and outputs ("post_memory_*"), and keeps the float64 timestamp update out of the graph.

Source: https://github.com/NVIDIA/DL4AGX/blob/0f44f732795aee2b72c19c7bf173dc21006995e4/AV-Solutions/streampetr-trt/conversion/pth2onnx.py
"""
import math

import torch
from torch import nn

CLASS = "state"
FAMILY = "tensor_data"
DYNAMIC = {}
BLIND = "domains-46"


def pos2posemb3d(pos, num_pos_feats=128, temperature=10000):
    scale = 2 * math.pi
    pos = pos * scale
    dim_t = torch.arange(num_pos_feats, dtype=torch.float32, device=pos.device)
    dim_t = temperature ** (2 * torch.div(dim_t, 2, rounding_mode="floor") / num_pos_feats)
    pos_x = pos[..., 0, None] / dim_t
    pos_y = pos[..., 1, None] / dim_t
    pos_z = pos[..., 2, None] / dim_t
    pos_x = torch.stack((pos_x[..., 0::2].sin(), pos_x[..., 1::2].cos()), dim=-1).flatten(-2)
    pos_y = torch.stack((pos_y[..., 0::2].sin(), pos_y[..., 1::2].cos()), dim=-1).flatten(-2)
    pos_z = torch.stack((pos_z[..., 0::2].sin(), pos_z[..., 1::2].cos()), dim=-1).flatten(-2)
    posemb = torch.cat((pos_y, pos_x, pos_z), dim=-1)
    return posemb


def pos2posemb1d(pos, num_pos_feats=256, temperature=10000):
    scale = 2 * math.pi
    pos = pos * scale
    dim_t = torch.arange(num_pos_feats, dtype=torch.float32, device=pos.device)
    dim_t = temperature ** (2 * torch.div(dim_t, 2, rounding_mode="floor") / num_pos_feats)
    pos_x = pos[..., 0, None] / dim_t
    pos_x = torch.stack((pos_x[..., 0::2].sin(), pos_x[..., 1::2].cos()), dim=-1).flatten(-2)
    return pos_x


def memory_refresh(memory, prev_exist):
    memory_shape = memory.shape
    view_shape = [1 for _ in range(len(memory_shape))]
    prev_exist = prev_exist.view(-1, *view_shape[1:])
    return memory * prev_exist


def topk_gather(feat, topk_indexes):
    if topk_indexes is not None:
        feat_shape = feat.shape
        topk_shape = topk_indexes.shape
        view_shape = [1 for _ in range(len(feat_shape))]
        view_shape[:2] = topk_shape[:2]
        topk_indexes = topk_indexes.view(*view_shape)
        feat = torch.gather(feat, 1, topk_indexes.repeat(1, 1, *feat_shape[2:]))
    return feat


def transform_reference_points(reference_points, egopose, reverse=False, translation=True):
    reference_points = torch.cat([reference_points, torch.ones_like(reference_points[..., 0:1])], dim=-1)
    if reverse:
        matrix = egopose.inverse()
    else:
        matrix = egopose
    if not translation:
        matrix[..., :3, 3] = 0.0
    reference_points = (matrix.unsqueeze(1) @ reference_points.unsqueeze(-1)).squeeze(-1)[..., :3]
    return reference_points


class StreamPETRHead(nn.Module):
    # trimmed: one decoder layer (nn.MultiheadAttention) stands in for the PETR temporal transformer
    def __init__(self, in_channels=64, embed_dims=256, num_query=32, memory_len=48, topk_proposals=16,
                 num_propagated=8, num_classes=4, code_size=10,
                 pc_range=(-51.2, -51.2, -5.0, 51.2, 51.2, 3.0)):
        super().__init__()
        self.embed_dims = embed_dims
        self.memory_len = memory_len
        self.topk_proposals = topk_proposals
        self.num_propagated = num_propagated
        self.pc_range = nn.Parameter(torch.tensor(pc_range), requires_grad=False)
        self.memory_embed = nn.Sequential(
            nn.Linear(in_channels, embed_dims), nn.ReLU(), nn.Linear(embed_dims, embed_dims))
        self.reference_points = nn.Embedding(num_query, 3)
        self.pseudo_reference_points = nn.Embedding(num_propagated, 3)
        self.query_embedding = nn.Sequential(
            nn.Linear(embed_dims * 3 // 2, embed_dims), nn.ReLU(), nn.Linear(embed_dims, embed_dims))
        self.time_embedding = nn.Sequential(nn.Linear(embed_dims, embed_dims), nn.LayerNorm(embed_dims))
        self.decoder = nn.MultiheadAttention(embed_dims, 8, batch_first=True)
        self.cls_branch = nn.Linear(embed_dims, num_classes)
        self.reg_branch = nn.Linear(embed_dims, code_size)
        self.reset_memory()

    def reset_memory(self):
        self.memory_embedding = None
        self.memory_reference_point = None
        self.memory_timestamp = None
        self.memory_egopose = None
        self.memory_velo = None

    def pre_update_memory(self, data):
        x = data["prev_exists"]
        B = x.size(0)
        # refresh the memory when the scene changes
        if self.memory_embedding is None:
            self.memory_embedding = x.new_zeros(B, self.memory_len, self.embed_dims)
            self.memory_reference_point = x.new_zeros(B, self.memory_len, 3)
            self.memory_timestamp = x.new_zeros(B, self.memory_len, 1)
            self.memory_egopose = x.new_zeros(B, self.memory_len, 4, 4)
            self.memory_velo = x.new_zeros(B, self.memory_len, 2)
        else:
            self.memory_timestamp += data["timestamp"].unsqueeze(-1).unsqueeze(-1)
            self.memory_egopose = data["ego_pose_inv"].unsqueeze(1) @ self.memory_egopose
            self.memory_reference_point = transform_reference_points(
                self.memory_reference_point, data["ego_pose_inv"], reverse=False)
            self.memory_timestamp = memory_refresh(self.memory_timestamp[:, :self.memory_len], x)
            self.memory_reference_point = memory_refresh(self.memory_reference_point[:, :self.memory_len], x)
            self.memory_embedding = memory_refresh(self.memory_embedding[:, :self.memory_len], x)
            self.memory_egopose = memory_refresh(self.memory_egopose[:, :self.memory_len], x)
            self.memory_velo = memory_refresh(self.memory_velo[:, :self.memory_len], x)

        # for the first frame, padding pseudo_reference_points (non-learnable)
        if self.num_propagated > 0:
            pseudo_reference_points = self.pseudo_reference_points.weight * (
                self.pc_range[3:6] - self.pc_range[0:3]) + self.pc_range[0:3]
            self.memory_reference_point[:, :self.num_propagated] = \
                self.memory_reference_point[:, :self.num_propagated] + (1 - x).view(B, 1, 1) * pseudo_reference_points
            self.memory_egopose[:, :self.num_propagated] = self.memory_egopose[:, :self.num_propagated] + \
                (1 - x).view(B, 1, 1, 1) * torch.eye(4, device=x.device)

    def post_update_memory(self, data, rec_ego_pose, all_cls_scores, all_bbox_preds, outs_dec):
        rec_reference_points = all_bbox_preds[..., :3][-1]
        rec_velo = all_bbox_preds[..., -2:][-1]
        rec_memory = outs_dec[-1]
        rec_score = all_cls_scores[-1].sigmoid().topk(1, dim=-1).values[..., 0:1]
        rec_timestamp = torch.zeros_like(rec_score, dtype=torch.float64)

        # topk proposals
        _, topk_indexes = torch.topk(rec_score, self.topk_proposals, dim=1)
        rec_timestamp = topk_gather(rec_timestamp, topk_indexes)
        rec_reference_points = topk_gather(rec_reference_points, topk_indexes).detach()
        rec_memory = topk_gather(rec_memory, topk_indexes).detach()
        rec_ego_pose = topk_gather(rec_ego_pose, topk_indexes)
        rec_velo = topk_gather(rec_velo, topk_indexes).detach()

        self.memory_embedding = torch.cat([rec_memory, self.memory_embedding], dim=1)
        self.memory_timestamp = torch.cat([rec_timestamp, self.memory_timestamp], dim=1)
        self.memory_egopose = torch.cat([rec_ego_pose, self.memory_egopose], dim=1)
        self.memory_reference_point = torch.cat([rec_reference_points, self.memory_reference_point], dim=1)
        self.memory_velo = torch.cat([rec_velo, self.memory_velo], dim=1)
        self.memory_reference_point = transform_reference_points(
            self.memory_reference_point, data["ego_pose"], reverse=False)
        self.memory_timestamp -= data["timestamp"].unsqueeze(-1).unsqueeze(-1)
        self.memory_egopose = data["ego_pose"].unsqueeze(1) @ self.memory_egopose

    def temporal_alignment(self, query_pos, tgt, reference_points):
        B = query_pos.size(0)
        temp_reference_point = (self.memory_reference_point - self.pc_range[:3]) / (
            self.pc_range[3:6] - self.pc_range[0:3])
        temp_pos = self.query_embedding(pos2posemb3d(temp_reference_point))
        temp_memory = self.memory_embedding
        rec_ego_pose = torch.eye(4, device=query_pos.device).unsqueeze(0).unsqueeze(0).repeat(
            B, query_pos.size(1), 1, 1)

        query_pos += self.time_embedding(pos2posemb1d(torch.zeros_like(reference_points[..., :1])))
        temp_pos += self.time_embedding(pos2posemb1d(self.memory_timestamp).float())

        if self.num_propagated > 0:
            tgt = torch.cat([tgt, temp_memory[:, :self.num_propagated]], dim=1)
            query_pos = torch.cat([query_pos, temp_pos[:, :self.num_propagated]], dim=1)
            reference_points = torch.cat([reference_points, temp_reference_point[:, :self.num_propagated]], dim=1)
            rec_ego_pose = torch.eye(4, device=query_pos.device).unsqueeze(0).unsqueeze(0).repeat(
                B, query_pos.shape[1] + temp_pos[:, self.num_propagated:].shape[1], 1, 1)
            temp_memory = temp_memory[:, self.num_propagated:]
            temp_pos = temp_pos[:, self.num_propagated:]
        return tgt, query_pos, reference_points, temp_memory, temp_pos, rec_ego_pose

    def forward(self, img_feats, timestamp, ego_pose, ego_pose_inv, prev_exists):
        data = {"img_feats": img_feats, "timestamp": timestamp, "ego_pose": ego_pose,
                "ego_pose_inv": ego_pose_inv, "prev_exists": prev_exists}
        # zero init the memory bank
        self.pre_update_memory(data)

        x = data["img_feats"]
        B, N, C, H, W = x.shape
        num_tokens = N * H * W
        memory = x.permute(0, 1, 3, 4, 2).reshape(B, num_tokens, C)
        memory = self.memory_embed(memory)

        reference_points = self.reference_points.weight.unsqueeze(0).repeat(B, 1, 1)
        query_pos = self.query_embedding(pos2posemb3d(reference_points))
        tgt = torch.zeros_like(query_pos)
        tgt, query_pos, reference_points, temp_memory, temp_pos, rec_ego_pose = self.temporal_alignment(
            query_pos, tgt, reference_points)

        kv = torch.cat([temp_memory + temp_pos, memory], dim=1)
        outs_dec = self.decoder(tgt + query_pos, kv, kv)[0].unsqueeze(0)
        outputs_class = self.cls_branch(outs_dec[-1])
        tmp = self.reg_branch(outs_dec[-1])
        reference = torch.logit(reference_points.clamp(1e-5, 1 - 1e-5))
        tmp[..., 0:3] += reference[..., 0:3]
        tmp[..., 0:3] = tmp[..., 0:3].sigmoid()
        all_cls_scores = torch.stack([outputs_class])
        all_bbox_preds = torch.stack([tmp])
        all_bbox_preds[..., 0:3] = (all_bbox_preds[..., 0:3] * (self.pc_range[3:6] - self.pc_range[0:3])
                                    + self.pc_range[0:3])

        # update the memory bank
        self.post_update_memory(data, rec_ego_pose, all_cls_scores, all_bbox_preds, outs_dec)
        return all_cls_scores, all_bbox_preds


def make_model():
    return StreamPETRHead().eval()


def _frame(prev_exists, t):
    ego_pose = torch.eye(4)
    ego_pose[:3, 3] = torch.randn(3)
    return (torch.randn(1, 2, 64, 4, 6),                    # 2 cameras, 4x6 feature maps
            torch.tensor([t], dtype=torch.float64),          # seconds since the previous frame
            ego_pose.unsqueeze(0), torch.linalg.inv(ego_pose).unsqueeze(0),
            torch.tensor([float(prev_exists)]))


def example_inputs():
    return _frame(0, 0.0)       # first frame of a scene


def other_inputs():
    return [_frame(1, 0.5), _frame(1, 0.5)]   # the next frames of the same scene


def probe_inputs():
    return other_inputs()

"""LBM (online point / object tracker): `LBM_online.online_forward(frame)` tracks one frame per call and keeps the
tracker memory on the module: `self.query`, `self.collision_dist`, `self.stream_dist`, `self.vis_mask`,
`self.mem_mask` (set by `init()`/`update()` and shifted FIFO-style with `torch.cat([... [:, :, 1:], new])` after
every frame) and a Python frame counter `self.t` (`queried_now_or_before = query_times <= self.t`, `self.t += 1`).
For ONNX export the repository replaces it with `LBM_export.forward(frame, queries, collision_dist, stream_dist,
vis_mask, mem_mask, last_pos)`, which takes the memory as inputs and returns the updated memory as outputs
(tools/export_onnx.py exports `LBM_export`). Trimmed: a small conv backbone and a dense-attention transformer stand in
for the ConvNeXt backbone and the mmcv deformable-attention layers; the state handling is as upstream.

Source: https://github.com/George-Zhuang/lbm/blob/cf3929222b8ee68b0d08ad284cd970009166ab2f/lbm/models/lbm_online.py
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "state"
FAMILY = "control_flow"
DYNAMIC = {}
BLIND = "domains-57"


class Backbone(nn.Module):
    def __init__(self, embed_dim, stride):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, embed_dim, 3, 2, 1), nn.GELU(), nn.Conv2d(embed_dim, embed_dim, 3, 2, 1))

    def encode_frames_online(self, frame):
        f = self.net(frame)  # 1 c h w
        return f.flatten(2).transpose(1, 2)  # 1 (h w) c


class LBMTransformer(nn.Module):
    """Stand-in for the deformable-attention LBMTransformer (same inputs and outputs)."""

    def __init__(self, size, stride, hidden_dim):
        super().__init__()
        self.stride = stride
        self.q_proj = nn.Linear(hidden_dim, hidden_dim)
        self.mem_proj = nn.Linear(2 * hidden_dim, hidden_dim)
        self.offset_head = nn.Linear(hidden_dim, 2)
        self.vis_head = nn.Linear(hidden_dim, 2)
        self.collision_out = nn.Linear(hidden_dim, hidden_dim)
        self.stream_out = nn.Linear(hidden_dim, hidden_dim)

    def forward(self, query, feat, stream_dist, collision_dist, vis_mask, mem_mask, queried_now_or_before):
        b, c, h, w = feat.shape
        tokens = feat.flatten(2).transpose(1, 2)  # b hw c
        # memory read (mean over the filled memory slots, invisible slots down-weighted)
        keep = ((~mem_mask).float() * (1.0 - 0.5 * vis_mask.float())).unsqueeze(-1)  # b n m 1
        denom = keep.sum(2).clamp(min=1.0)
        mem = torch.cat([(collision_dist * keep).sum(2) / denom, (stream_dist * keep).sum(2) / denom], -1)
        q = query + self.mem_proj(mem)
        attn = torch.softmax(self.q_proj(q) @ tokens.transpose(1, 2) / c ** 0.5, dim=-1)  # b n hw
        ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
        grid = (torch.stack([xs, ys], -1).reshape(-1, 2).float() + 0.5) * self.stride  # hw 2, in model pixels
        ref = (attn @ grid).unsqueeze(-2)  # b n 1 2
        q = q + attn @ tokens
        q = q * queried_now_or_before.unsqueeze(-1)
        out_t = [{"reference_points": ref}]
        memory = {"collision": self.collision_out(q), "stream": self.stream_out(q)}
        offset = torch.tanh(self.offset_head(q)) * self.stride
        vis, rho = self.vis_head(q).unbind(-1)
        return out_t, memory, offset, vis, rho


class LBM_online(nn.Module):
    def __init__(self, size=(32, 48), stride=4, embed_dim=16, memory_size=4):
        super().__init__()
        self.size = size
        self.stride = stride
        self.embed_dim = embed_dim
        self.memory_size = memory_size
        self.visibility_treshold = 0.8
        self.h = size[0] // stride
        self.w = size[1] // stride
        self.backbone = Backbone(embed_dim, stride)
        self.transformer = LBMTransformer(size, stride, embed_dim)
        self.num_query = None
        self.t = 0
        self.N = 0
        self.query = None
        self.query_points = None
        self.collision_dist = None
        self.stream_dist = None
        self.vis_mask = None
        self.mem_mask = None
        self.device = 'cpu'

    def init(self, query_points, first_frame):
        self.query_points = query_points
        self.N = query_points.shape[0]
        self.img_size = first_frame.shape[-2:]
        self.device = first_frame.device

        f_t = self.backbone.encode_frames_online(first_frame)  # 1 (h w) c
        f_t = f_t.transpose(1, 2).reshape(1, -1, self.h, self.w)  # 1 c h w

        update_mask = torch.ones(self.N, device=self.device, dtype=torch.bool)
        remove_mask = torch.zeros(self.N, device=self.device, dtype=torch.bool)
        self.update(self.query_points, f_t, update_mask, remove_mask)

    def update(self, query_points, frame_feat, update_mask, remove_mask):
        N = query_points.shape[0]

        if N > 0:
            remove_mask = remove_mask[:self.N]
            N_prev = (~remove_mask).sum().item()
            N_update = update_mask.sum().item()

            update_points = query_points[update_mask]  # (N_update, 2)
            H, W = self.img_size
            update_points = update_points.clone()
            update_points[:, 1] = (update_points[:, 1] / H) * self.size[0]
            update_points[:, 0] = (update_points[:, 0] / W) * self.size[1]

            x, y = update_points[:, 0], update_points[:, 1]
            x_grid = (x / self.size[1]) * 2 - 1
            y_grid = (y / self.size[0]) * 2 - 1
            grid = torch.stack([x_grid, y_grid], dim=-1).view(N_update, 1, 1, 2)

            frame_feat_expanded = frame_feat.expand(N_update, -1, -1, -1)
            update_query = F.grid_sample(frame_feat_expanded, grid, mode='bilinear',
                                         padding_mode='border', align_corners=False)
            update_query = update_query.reshape(1, N_update, self.embed_dim)

            query = torch.zeros(1, N, self.embed_dim, device=self.device)
            collision_dist = torch.zeros(1, N, self.memory_size, self.embed_dim, device=self.device)
            stream_dist = torch.zeros(1, N, self.memory_size, self.embed_dim, device=self.device)
            vis_mask = torch.ones(1, N, self.memory_size, device=self.device, dtype=torch.bool)
            mem_mask = torch.ones(1, N, self.memory_size, device=self.device, dtype=torch.bool)

            if self.query is not None and N_prev > 0:
                query[:, :N_prev] = self.query[:, ~remove_mask]
                query[:, update_mask] = update_query
                collision_dist[:, :N_prev] = self.collision_dist[:, ~remove_mask]
                stream_dist[:, :N_prev] = self.stream_dist[:, ~remove_mask]
                vis_mask[:, :N_prev] = self.vis_mask[:, ~remove_mask]
                mem_mask[:, :N_prev] = self.mem_mask[:, ~remove_mask]
            else:
                query = update_query

            self.query = query
            self.query_points = query_points
            self.collision_dist = collision_dist
            self.stream_dist = stream_dist
            self.vis_mask = vis_mask
            self.mem_mask = mem_mask

        self.N = N

    def online_forward(self, frame):
        H, W = frame.shape[-2], frame.shape[-1]

        f_t = self.backbone.encode_frames_online(frame)  # 1 (h w) c
        f_t = f_t.transpose(1, 2).reshape(1, -1, self.h, self.w)  # 1 c h w

        query_times = torch.zeros([1, self.N], device=self.device, dtype=torch.long)
        queried_now_or_before = (query_times <= self.t)

        out_t, memory, offset, vis, rho = self.transformer(
            query=self.query.clone(),
            feat=f_t,
            stream_dist=self.stream_dist.clone(),
            collision_dist=self.collision_dist.clone(),
            vis_mask=self.vis_mask.clone(),
            mem_mask=self.mem_mask.clone(),
            queried_now_or_before=queried_now_or_before,
        )

        # update memory
        self.collision_dist = torch.cat([self.collision_dist[:, :, 1:], memory['collision'].unsqueeze(2)], dim=2)
        self.stream_dist = torch.cat([self.stream_dist[:, :, 1:], memory['stream'].unsqueeze(2)], dim=2)
        self.mem_mask = torch.cat([self.mem_mask[:, :, 1:], ~queried_now_or_before.unsqueeze(-1)], dim=2)
        self.vis_mask = torch.cat([self.vis_mask[:, :, 1:], (F.sigmoid(vis) < self.visibility_treshold).unsqueeze(-1)], dim=2)

        self.t += 1

        ref_tracks = out_t[-1]['reference_points'].squeeze(-2, -4)  # n 2
        coord_pred = ref_tracks + offset[0]  # n 2
        vis_pred = F.sigmoid(vis)[0] > self.visibility_treshold
        rho_pred = F.sigmoid(rho)[0]

        coord_pred[:, 1] = (coord_pred[:, 1] / self.size[0]) * H
        coord_pred[:, 0] = (coord_pred[:, 0] / self.size[1]) * W

        return coord_pred, vis_pred, rho_pred, f_t

    def forward(self, frame):
        return self.online_forward(frame)


_POINTS = torch.tensor([[10.0, 8.0], [30.0, 20.0], [40.0, 5.0]])  # (N, 2) xy on the first frame


def make_model():
    model = LBM_online().eval()
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        model.init(_POINTS.clone(), torch.rand(1, 3, 32, 48, generator=g))
    return model


def example_inputs():
    return (torch.rand(1, 3, 32, 48),)


def other_inputs():
    return [(torch.rand(1, 3, 32, 48),) for _ in range(4)]


def probe_inputs():
    return other_inputs()

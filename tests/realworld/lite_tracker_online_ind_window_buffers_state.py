"""LiteTracker (ImFusion, online point tracking in surgical video): `forward(frame, queries)` processes one frame per
call and keeps the tracker's memory on the module: a Python frame counter `self.online_ind` (`if self.online_ind == 0`
/ `== 1` branches, `self.online_ind += 1`), sliding-window FIFO buffers `self.coords_buffer`/`vis_buffer`/`conf_buffer`
/`corr_embs_buffer`, an EMA flow buffer and a per-level track-feature cache (`if is_track_initialized_now.any()`).
The ONNX export PR says this stateful design "prevents direct export as a single ONNX graph" and exports only the
stateless sub-networks, re-implementing the state handling in Python around ONNX Runtime. Trimmed: small encoder,
one correlation level per scale and an MLP in place of the EfficientUpdateFormer; the state handling is as upstream.

Source: https://github.com/ImFusionGmbH/lite-tracker/pull/2
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "state"
FAMILY = "control_flow"
DYNAMIC = {}
BLIND = "domains-52"


def sample_features(fmaps, coords):
    # fmaps [B, 1, C, H, W], coords [B, N, 2] in feature pixels -> [B, N, C]
    B, _, C, H, W = fmaps.shape
    grid = torch.stack([coords[..., 0] / (W - 1), coords[..., 1] / (H - 1)], -1) * 2 - 1
    return F.grid_sample(fmaps[:, 0], grid[:, :, None], align_corners=True)[..., 0].permute(0, 2, 1)


class LiteTracker(nn.Module):
    def __init__(self, window_len=4, stride=4, corr_levels=2, model_resolution=(32, 48), iters=1):
        super().__init__()
        self.window_len = window_len
        self.stride = stride
        self.corr_levels = corr_levels
        self.latent_dim = 16
        self.inv_sigmoid_true_val = 4.6  # empirically chosen value close to 0.9
        self.iters = iters
        self.model_resolution = model_resolution
        self.fnet = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, self.latent_dim, 3, 2, 1))
        self.updateformer = nn.Sequential(nn.Linear(2 + corr_levels + 4, 32), nn.GELU(), nn.Linear(32, 4))
        self.reset()

    def reset(self):
        self.online_ind = 0
        # Buffers have a max temporal size (`T`) of `self.window_len - 1` and operates in a FIFO manner
        self.ema_flow_buffer = torch.empty(0)  # shape [B, T, N, 2]
        self.corr_embs_buffer = torch.empty(0)  # shape [B, T, N, C]
        self.coords_buffer = torch.empty(0)  # in the space of 1 / self.stride; shape [B, T, N, 2]
        self.vis_buffer = torch.empty(0)  # in logit space; shape [B, T, N, 1]
        self.conf_buffer = torch.empty(0)  # in logit space; of shape [B, T, N, 1]
        # Caches are used to store the intermediate results of the model
        self.track_feat_cache = [torch.empty(0)] * self.corr_levels  # Track features for matching
        print(f"All the caches are reset.")

    def forward_window(self, fmaps_pyramid, coords, track_feat_support_pyramid, queried_frames, vis, conf,
                       is_track_previsouly_initialized, iters=4):
        B = fmaps_pyramid[0].shape[0]
        N = coords.shape[2]
        num_new_frames = 1
        num_prev_frames = min(self.online_ind, (self.window_len - 1))
        current_window_size = num_prev_frames + num_new_frames

        corr_embs = torch.empty(1)
        for it in range(iters):
            coords = coords.detach()  # B T N 2
            coords_init = coords.view(-1, N, 2)
            corr_embs_list = []
            for i in range(self.corr_levels):
                corr_feat = sample_features(fmaps_pyramid[i], coords_init / 2**i)
                corr_embs_list.append((corr_feat * track_feat_support_pyramid[i][:, 0]).sum(-1, keepdim=True))
            corr_embs = torch.cat(corr_embs_list, dim=-1).view(B, num_new_frames, N, -1)

            # If it is the first time step, we skip the transfomer as there is nothing to compute
            if self.online_ind == 0:
                break

            current_window_coords = torch.cat([self.coords_buffer.detach(), coords], dim=1)
            current_window_vis = torch.cat([self.vis_buffer.detach(), vis], dim=1)
            current_window_conf = torch.cat([self.conf_buffer.detach(), conf], dim=1)
            current_window_corr_embs = torch.cat([self.corr_embs_buffer.detach(), corr_embs], dim=1)
            rel_coords_forward = F.pad(current_window_coords[:, :-1] - current_window_coords[:, 1:], (0, 0, 0, 0, 0, 1))
            x = torch.cat([current_window_vis, current_window_conf, current_window_corr_embs,
                           rel_coords_forward, current_window_coords / 10.0], dim=-1)
            delta = self.updateformer(x.permute(0, 2, 1, 3))  # B N T 4
            delta_coords = delta[..., :2].permute(0, 2, 1, 3)
            delta_vis = delta[..., 2:3].permute(0, 2, 1, 3)
            delta_conf = delta[..., 3:].permute(0, 2, 1, 3)

            vis[is_track_previsouly_initialized] = (
                vis[is_track_previsouly_initialized]
                + delta_vis[:, -num_new_frames:][is_track_previsouly_initialized]
            )
            conf[is_track_previsouly_initialized] = (
                conf[is_track_previsouly_initialized]
                + delta_conf[:, -num_new_frames:][is_track_previsouly_initialized]
            )
            coords[is_track_previsouly_initialized.expand_as(coords)] = (
                coords[is_track_previsouly_initialized.expand_as(coords)]
                + delta_coords[:, -num_new_frames:][is_track_previsouly_initialized.expand_as(coords)]
            )

        # Update buffers
        if self.online_ind == 0:
            self.coords_buffer = coords
            self.vis_buffer = vis
            self.conf_buffer = conf
            self.corr_embs_buffer = corr_embs
        else:
            self.coords_buffer = torch.cat([self.coords_buffer, coords], dim=1)
            self.vis_buffer = torch.cat([self.vis_buffer, vis], dim=1)
            self.conf_buffer = torch.cat([self.conf_buffer, conf], dim=1)
            self.corr_embs_buffer = torch.cat([self.corr_embs_buffer, corr_embs], dim=1)

        if current_window_size == self.window_len:
            self.coords_buffer = self.coords_buffer[:, 1:]
            self.vis_buffer = self.vis_buffer[:, 1:]
            self.conf_buffer = self.conf_buffer[:, 1:]
            self.corr_embs_buffer = self.corr_embs_buffer[:, 1:]

        coords = coords[..., :2] * float(self.stride)
        vis = vis[..., 0]
        conf = conf[..., 0]
        return coords, vis, conf

    def forward(self, frame, queries):
        original_shape = frame.shape
        frame = F.interpolate(frame, size=self.model_resolution, mode="bilinear", align_corners=True)
        queries_scaled = queries.clone()
        queries_scaled[:, :, 1] *= (self.model_resolution[1] - 1) / (original_shape[3] - 1)  # W
        queries_scaled[:, :, 2] *= (self.model_resolution[0] - 1) / (original_shape[2] - 1)  # H
        B, C, H, W = frame.shape
        B, N, __ = queries_scaled.shape
        frame = 2 * (frame / 255.0) - 1.0
        T = 1
        queried_frames = queries_scaled[:, :, 0].long()
        queried_coords = queries_scaled[..., 1:3].clone()
        queried_coords = queried_coords / self.stride

        fmaps = self.fnet(frame).reshape(B, -1, self.latent_dim, H // self.stride, W // self.stride)
        fmaps_pyramid = [fmaps]
        track_feat_support_pyramid = []
        for i in range(self.corr_levels - 1):
            fmaps_ = F.avg_pool2d(fmaps.reshape(B * T, self.latent_dim, fmaps.shape[-2], fmaps.shape[-1]), 2, stride=2)
            fmaps = fmaps_.reshape(B, T, self.latent_dim, fmaps_.shape[-2], fmaps_.shape[-1])
            fmaps_pyramid.append(fmaps)

        is_track_initialized_now = (queried_frames == self.online_ind)[:, None, :, None]  # B 1 N 1

        for i in range(self.corr_levels):
            if self.online_ind == 0:
                track_feat_support = sample_features(fmaps_pyramid[i], queried_coords / 2**i)[:, None]
                self.track_feat_cache[i] = torch.zeros_like(track_feat_support)
                self.track_feat_cache[i] += track_feat_support * is_track_initialized_now
            else:
                if is_track_initialized_now.any():
                    track_feat_support = sample_features(fmaps_pyramid[i], queried_coords / 2**i)[:, None]
                    self.track_feat_cache[i] += track_feat_support * is_track_initialized_now
            track_feat_support_pyramid.append(self.track_feat_cache[i].unsqueeze(1))

        vis_init = torch.zeros((B, T, N, 1)).float()
        conf_init = torch.zeros((B, T, N, 1)).float()
        coords_init = queried_coords.reshape(B, T, N, 2).float()
        vis_init = torch.where(is_track_initialized_now.expand_as(vis_init), self.inv_sigmoid_true_val, vis_init)
        conf_init = torch.where(is_track_initialized_now.expand_as(conf_init), self.inv_sigmoid_true_val, conf_init)

        if self.online_ind == 0:
            self.ema_flow_buffer = torch.zeros_like(coords_init)

        is_track_previsouly_initialized = (queried_frames < self.online_ind)[:, None, :, None]  # B 1 N 1
        if self.online_ind > 0:
            vis_init = torch.where(is_track_previsouly_initialized.expand_as(vis_init), self.vis_buffer[:, -1], vis_init)
            conf_init = torch.where(is_track_previsouly_initialized.expand_as(conf_init), self.conf_buffer[:, -1], conf_init)
            if self.online_ind == 1:
                coords_init = torch.where(is_track_previsouly_initialized.expand_as(coords_init),
                                          self.coords_buffer[:, -1], coords_init)
            else:
                last_flow = self.coords_buffer[:, -1] - self.coords_buffer[:, -2]
                cached_flow = self.ema_flow_buffer
                alpha = 0.8
                accumulated_flow = alpha * last_flow + (1 - alpha) * cached_flow
                self.ema_flow_buffer = accumulated_flow
                coords_init = torch.where(is_track_previsouly_initialized.expand_as(coords_init),
                                          self.coords_buffer[:, -1] + accumulated_flow, coords_init)

        coords, viss, confs = self.forward_window(
            fmaps_pyramid=fmaps_pyramid, coords=coords_init, track_feat_support_pyramid=track_feat_support_pyramid,
            queried_frames=queried_frames, vis=vis_init, conf=conf_init, iters=self.iters,
            is_track_previsouly_initialized=is_track_previsouly_initialized,
        )
        coords[:, :, :, 0] *= (original_shape[3] - 1) / (self.model_resolution[1] - 1)  # W
        coords[:, :, :, 1] *= (original_shape[2] - 1) / (self.model_resolution[0] - 1)  # H
        viss = torch.sigmoid(viss)
        confs = torch.sigmoid(confs)
        viss = viss * confs
        thr = 0.6
        viss = viss > thr
        self.online_ind += 1
        return coords, viss, confs


def make_model():
    return LiteTracker().eval()


# one video: the same queries (frame index, x, y) every call; two points start at frame 0, one at frame 2
_QUERIES = torch.tensor([[[0.0, 20.0, 15.0], [0.0, 60.0, 40.0], [2.0, 35.0, 30.0]]])


def example_inputs():
    return (torch.rand(1, 3, 64, 96) * 255, _QUERIES.clone())


def other_inputs():
    return [(torch.rand(1, 3, 64, 96) * 255, _QUERIES.clone()) for _ in range(4)]


def probe_inputs():
    return other_inputs()

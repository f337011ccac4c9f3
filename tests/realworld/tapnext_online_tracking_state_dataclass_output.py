"""TAPNext (point tracking, torch port) online tracking: `forward(video, query_points, state=None)` returns
`(*self.prediction_heads(point_tokens), TAPNextTrackingState(step=step + t, query_points=..., hidden_state=
ssm_cache))`, a dataclass holding a Python int step and a list of per-block caches; the report wants the
tracking state as an input and output of the ONNX model and cannot export/feed it back, since it is not a tensor.
(einops rearranges written with permute/reshape; the LRU blocks cut to a GRU-like cell per block.)

Source: https://github.com/google-deepmind/tapnet/issues/143
"""
import dataclasses
from typing import List

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "outputs"
FAMILY = "scalars"
DYNAMIC = {"video": {0: "batch"}, "query_points": {0: "batch", 1: "num_queries"}}
BLIND = "domains-17"


@dataclasses.dataclass
class TAPNextTrackingState:
    """State for TAPNext."""

    step: int
    query_points: torch.Tensor  # Float["*B Q 3"]
    hidden_state: List[torch.Tensor] = None


class RecurrentBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.inp = nn.Linear(width, width)
        self.gate = nn.Linear(width, width)

    def forward(self, x, cache=None):  # x: (b n) t c
        h = torch.zeros_like(x[:, 0]) if cache is None else cache
        outs = []
        for i in range(x.shape[1]):
            a = torch.sigmoid(self.gate(x[:, i]))
            h = a * h + (1 - a) * torch.tanh(self.inp(x[:, i]))
            outs.append(h)
        return torch.stack(outs, 1), h


class TAPNext(nn.Module):
    def __init__(self, image_size=(32, 32), width=32, patch_size=(8, 8), depth=2):
        super().__init__()
        self.width = width
        self.image_size = image_size
        self.lin_proj = nn.Conv2d(3, width, kernel_size=patch_size, stride=patch_size)
        self.blocks = nn.ModuleList([RecurrentBlock(width) for _ in range(depth)])
        self.point_query_token = nn.Parameter(torch.randn(1, 1, 1, width) * 0.02)
        self.query_proj = nn.Linear(2, width)
        self.encoder_norm = nn.LayerNorm(width)
        self.coordinate_head = nn.Linear(width, 2)
        self.visible_head = nn.Linear(width, 1)

    def prediction_heads(self, x):
        tracks = self.coordinate_head(x).sigmoid() * x.new_tensor(self.image_size)
        visible_logits = self.visible_head(x)
        return tracks, visible_logits

    def forward(self, video, query_points=None, state=None):
        b, t, _, _, _ = video.shape
        video_tokens = self.lin_proj(video.permute(0, 1, 4, 2, 3).reshape(b * t, 3, *video.shape[2:4]))
        _, c, h, w = video_tokens.shape
        video_tokens = video_tokens.reshape(b, t, c, h * w).permute(0, 1, 3, 2)  # b t (h w) c
        if state is not None:
            if query_points is None:
                query_points = state.query_points
            step = state.step
        else:
            step = 0
        q = query_points.shape[1]
        point_tokens = self.point_query_token + self.query_proj(query_points[..., 1:]).unsqueeze(1)
        point_tokens = point_tokens.expand(b, t, q, c)
        x = torch.cat([video_tokens, point_tokens], dim=2)  # [b t (h * w + Q) c]
        n = x.shape[2]
        ssm_cache = []
        for blk, cache in zip(self.blocks, state.hidden_state if state is not None else [None] * 12):
            y = x.permute(0, 2, 1, 3).reshape(b * n, t, c)
            y, ssm_cache_layer = blk(y, cache=cache)
            x = y.reshape(b, n, t, c).permute(0, 2, 1, 3)
            ssm_cache.append(ssm_cache_layer)
        x = self.encoder_norm(x)
        point_tokens = x[:, :, h * w:, :]
        return (
            *self.prediction_heads(point_tokens),
            TAPNextTrackingState(
                step=step + t,
                query_points=state.query_points if state is not None else query_points,
                hidden_state=ssm_cache,
            ),
        )


def make_model():
    return TAPNext().eval()


def example_inputs():
    video = torch.rand(1, 1, 32, 32, 3)  # online tracking: one frame at a time
    query_points = torch.cat([torch.zeros(1, 5, 1), torch.rand(1, 5, 2) * 32], -1)
    return (video, query_points)


def other_inputs():
    return [
        (torch.rand(2, 1, 32, 32, 3), torch.cat([torch.zeros(2, 8, 1), torch.rand(2, 8, 2) * 32], -1)),
        (torch.rand(3, 1, 32, 32, 3), torch.cat([torch.zeros(3, 3, 1), torch.rand(3, 3, 2) * 32], -1)),
    ]


def probe_inputs():
    return other_inputs()

"""CoTracker predictor (point tracking in video): with no queries and `grid_size == 0` it takes the dense path,
`grid_step = W // grid_size` and loops `for offset in range(grid_step * grid_step)` over shifted query grids
(1764 iterations for the 1282-wide example); the export warns on `if queries is None and grid_size == 0` and the
loop/grid sizes are fixed by the example video. The CoTracker network itself is replaced by a tiny stand-in.

Source: https://github.com/facebookresearch/co-tracker/issues/10
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"video": {1: "time", 3: "height", 4: "width"}}
BLIND = "domains-2"


def smart_cat(tensor1, tensor2, dim):
    if tensor1 is None:
        return tensor2
    return torch.cat([tensor1, tensor2], dim=dim)


class TinyCoTracker(nn.Module):
    """Stand-in for the CoTracker network: same call signature and outputs."""

    def __init__(self):
        super().__init__()
        self.fnet = nn.Conv2d(3, 4, 3, padding=1)
        self.head = nn.Linear(4, 3)

    def forward(self, rgbs, queries, iters=6):
        B, T, C, H, W = rgbs.shape
        fmaps = self.fnet(rgbs.reshape(B * T, C, H, W)).mean(dim=(2, 3)).reshape(B, T, 1, 4)
        out = self.head(fmaps)
        tracks = queries[:, None, :, 1:] + out[..., :2]
        visibilities = torch.sigmoid(out[..., 2] + 0.1 * queries[:, None, :, 0])
        return tracks, None, visibilities, None


class CoTrackerPredictor(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.interp_shape = (24, 32)
        self.model = TinyCoTracker()

    @torch.no_grad()
    def forward(self, video, queries: torch.Tensor = None, grid_size: int = 0, grid_query_frame: int = 0):
        if queries is None and grid_size == 0:
            tracks, visibilities = self._compute_dense_tracks(video, grid_query_frame=grid_query_frame)
        else:
            tracks, visibilities = self._compute_sparse_tracks(video, queries, grid_size)
        return tracks, visibilities

    def _compute_dense_tracks(self, video, grid_query_frame, grid_size=30):
        *_, H, W = video.shape
        grid_step = W // grid_size
        grid_width = W // grid_step
        grid_height = H // grid_step
        tracks = visibilities = None
        grid_pts = torch.zeros((1, grid_width * grid_height, 3)).to(video.device)
        grid_pts[0, :, 0] = grid_query_frame
        for offset in range(grid_step * grid_step):
            ox = offset % grid_step
            oy = offset // grid_step
            grid_pts[0, :, 1] = torch.arange(grid_width).repeat(grid_height) * grid_step + ox
            grid_pts[0, :, 2] = torch.arange(grid_height).repeat_interleave(grid_width) * grid_step + oy
            tracks_step, visibilities_step = self._compute_sparse_tracks(video=video, queries=grid_pts)
            tracks = smart_cat(tracks, tracks_step, dim=2)
            visibilities = smart_cat(visibilities, visibilities_step, dim=2)
        return tracks, visibilities

    def _compute_sparse_tracks(self, video, queries, grid_size=0):
        B, T, C, H, W = video.shape
        assert B == 1
        video = video.reshape(B * T, C, H, W)
        video = F.interpolate(video, tuple(self.interp_shape), mode="bilinear")
        video = video.reshape(B, T, 3, self.interp_shape[0], self.interp_shape[1])
        queries = queries.clone()
        B, N, D = queries.shape
        assert D == 3
        queries[:, :, 1] *= self.interp_shape[1] / W
        queries[:, :, 2] *= self.interp_shape[0] / H

        tracks, __, visibilities, __ = self.model(rgbs=video, queries=queries, iters=6)
        thr = 0.9
        visibilities = visibilities > thr
        tracks[:, :, :, 0] *= W / float(self.interp_shape[1])
        tracks[:, :, :, 1] *= H / float(self.interp_shape[0])
        return tracks, visibilities


class CoTrackerWrapper(nn.Module):
    # export wrapper, as in the thread: only the video is an input, the predictor's defaults are used
    def __init__(self, model):
        super(CoTrackerWrapper, self).__init__()
        self.model = model

    def forward(self, video):
        return self.model(video)


def make_model():
    return CoTrackerWrapper(CoTrackerPredictor().eval()).eval()


def example_inputs():
    return (torch.randn(1, 4, 3, 24, 64),)


def other_inputs():
    return [(torch.randn(1, 6, 3, 30, 90),), (torch.randn(1, 3, 3, 20, 40),)]


def probe_inputs():
    return other_inputs()

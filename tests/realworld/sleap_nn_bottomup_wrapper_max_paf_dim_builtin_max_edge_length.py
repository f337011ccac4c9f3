"""SLEAP-NN bottom-up (animal pose, PAF) ONNX export wrapper: the PAF distance penalty uses
`max_edge_length = torch.tensor(ratio * max(n_paf_channels, paf_height, paf_width) * stride)`; the Python
`max()` over the PAF sizes picks one dimension at export time, so the exported graph keeps that choice for
every resolution; the PR that adds the export (dynamic_axes on height/width) lists "Dynamic image sizes not
supported (fixed at export time)" as a known limitation.

Source: https://github.com/talmolab/sleap-nn/pull/418
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-83"


class TinyBottomUp(nn.Module):
    def __init__(self, n_nodes=4, n_edges=3):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, stride=4, padding=1)
        self.cms = nn.Conv2d(16, n_nodes, 1)
        self.paf = nn.Conv2d(16, 2 * n_edges, 3, stride=2, padding=1)
        nn.init.constant_(self.cms.bias, 0.5)  # confidence maps with positive peaks

    def forward(self, x):
        f = torch.relu(self.stem(x))
        return {"MultiInstanceConfmapsHead": self.cms(f), "PartAffinityFieldsHead": self.paf(f)}


class BottomUpONNXWrapper(nn.Module):
    def __init__(self, model, skeleton_edges, n_nodes, max_peaks_per_node=5, n_line_points=10,
                 cms_output_stride=4, pafs_output_stride=8, max_edge_length_ratio=0.25, dist_penalty_weight=1.0):
        super().__init__()
        self.model = model
        self.n_nodes = n_nodes
        self.n_edges = len(skeleton_edges)
        self.max_peaks_per_node = max_peaks_per_node
        self.cms_output_stride = cms_output_stride
        self.pafs_output_stride = pafs_output_stride
        self.max_edge_length_ratio = max_edge_length_ratio
        self.dist_penalty_weight = dist_penalty_weight
        self.register_buffer("edge_src", torch.tensor([e[0] for e in skeleton_edges], dtype=torch.long))
        self.register_buffer("edge_dst", torch.tensor([e[1] for e in skeleton_edges], dtype=torch.long))
        self.register_buffer("line_samples", torch.linspace(0, 1, n_line_points, dtype=torch.float32))

    @staticmethod
    def _find_topk_peaks_per_node(confmaps, k):
        batch_size, n_nodes, height, width = confmaps.shape
        pooled = F.max_pool2d(confmaps, kernel_size=3, stride=1, padding=1)
        is_peak = (confmaps == pooled) & (confmaps > 0)
        confmaps_flat = confmaps.reshape(batch_size, n_nodes, height * width)
        is_peak_flat = is_peak.reshape(batch_size, n_nodes, height * width)
        masked = torch.where(is_peak_flat, confmaps_flat, torch.full_like(confmaps_flat, -1e9))
        values, indices = torch.topk(masked, k=k, dim=2)
        y = indices // width
        x = indices % width
        peaks = torch.stack([x.float(), y.float()], dim=-1)
        return peaks, values, values > 0

    def forward(self, image):
        if image.dtype != torch.float32:
            image = image.float()
        image = image / 255.0
        out = self.model(image)
        confmaps, pafs = out["MultiInstanceConfmapsHead"], out["PartAffinityFieldsHead"]
        peaks, peak_vals, peak_mask = self._find_topk_peaks_per_node(confmaps, self.max_peaks_per_node)
        peaks = peaks * self.cms_output_stride

        # max_edge_length = ratio * max(paf_dims) * pafs_stride
        _, n_paf_channels, paf_height, paf_width = pafs.shape
        max_paf_dim = max(n_paf_channels, paf_height, paf_width)
        max_edge_length = torch.tensor(
            self.max_edge_length_ratio * max_paf_dim * self.pafs_output_stride,
            dtype=peaks.dtype,
            device=peaks.device,
        )
        line_scores, candidate_mask = self._score_all_candidates(pafs, peaks, peak_mask, max_edge_length)
        return {"peaks": peaks, "peak_vals": peak_vals, "peak_mask": peak_mask,
                "line_scores": line_scores, "candidate_mask": candidate_mask}

    def _score_all_candidates(self, pafs, peaks, peak_mask, max_edge_length):
        batch_size = peaks.shape[0]
        k = self.max_peaks_per_node
        n_edges = self.n_edges
        _, _, paf_height, paf_width = pafs.shape
        src_peaks = peaks[:, self.edge_src, :, :].unsqueeze(3).expand(-1, -1, -1, k, -1)
        dst_peaks = peaks[:, self.edge_dst, :, :].unsqueeze(2).expand(-1, -1, k, -1, -1)
        candidate_mask = (peak_mask[:, self.edge_src, :].unsqueeze(3).expand(-1, -1, -1, k)
                          & peak_mask[:, self.edge_dst, :].unsqueeze(2).expand(-1, -1, k, -1))
        src_peaks_flat = src_peaks.reshape(batch_size, n_edges, k * k, 2)
        dst_peaks_flat = dst_peaks.reshape(batch_size, n_edges, k * k, 2)
        candidate_mask_flat = candidate_mask.reshape(batch_size, n_edges, k * k)

        spatial_vecs = dst_peaks_flat - src_peaks_flat
        spatial_lengths = torch.norm(spatial_vecs, dim=-1, keepdim=True).clamp(min=1e-6)
        spatial_vecs_norm = spatial_vecs / spatial_lengths
        line_samples = self.line_samples.view(1, 1, 1, -1, 1)
        src_exp = src_peaks_flat.unsqueeze(3)
        line_points = src_exp + line_samples * (dst_peaks_flat.unsqueeze(3) - src_exp)
        line_points_paf = line_points / self.pafs_output_stride
        line_x = line_points_paf[..., 0].clamp(0, paf_width - 1)
        line_y = line_points_paf[..., 1].clamp(0, paf_height - 1)

        all_scores = []
        for edge_idx in range(n_edges):
            lx_norm = (line_x[:, edge_idx] / (paf_width - 1)) * 2 - 1
            ly_norm = (line_y[:, edge_idx] / (paf_height - 1)) * 2 - 1
            grid = torch.stack([lx_norm, ly_norm], dim=-1)
            paf_x_samples = F.grid_sample(pafs[:, 2 * edge_idx].unsqueeze(1), grid, mode="bilinear",
                                          padding_mode="zeros", align_corners=True).squeeze(1)
            paf_y_samples = F.grid_sample(pafs[:, 2 * edge_idx + 1].unsqueeze(1), grid, mode="bilinear",
                                          padding_mode="zeros", align_corners=True).squeeze(1)
            paf_samples = torch.stack([paf_x_samples, paf_y_samples], dim=-1)
            mean_scores = (paf_samples * spatial_vecs_norm[:, edge_idx].unsqueeze(2)).sum(dim=-1).mean(dim=-1)
            penalty = torch.clamp((max_edge_length / spatial_lengths.squeeze(-1)[:, edge_idx]) - 1, max=0)
            all_scores.append(mean_scores + penalty * self.dist_penalty_weight)
        line_scores = torch.stack(all_scores, dim=1)
        line_scores = line_scores.masked_fill(~candidate_mask_flat, -2.0)
        return line_scores, candidate_mask_flat


def make_model():
    return BottomUpONNXWrapper(TinyBottomUp(), skeleton_edges=[(0, 1), (1, 2), (2, 3)], n_nodes=4)


def example_inputs():
    return (torch.rand(2, 3, 128, 160) * 255,)


def other_inputs():
    return [(torch.rand(3, 3, 192, 160) * 255,), (torch.rand(1, 3, 96, 128) * 255,)]


def probe_inputs():
    return other_inputs()

"""AxoMEME (phylogenetic selection-scan transformer): the phylogenetic positional embedding projects classical-MDS
coordinates of the species distance matrix (double-centred `B = -0.5 * H @ D2 @ H`, eigendecomposition, top-4
`evecs * sqrt(evals)`); computing them in the graph with `torch.linalg.eigh` makes the ONNX export fail ("the
identical module exports fine with eigh removed and fails with it present"), so mds_coords became a model input.

Source: https://github.com/veg/datamonkey3/blob/main/src/lib/services/axomeme/symmetricEigen.js
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"dist_matrix": {0: "batch", 1: "species", 2: "species"}}
BLIND = "operators-20"


def compute_mds_coordinates(dist_matrix, n_components=4):
    N = dist_matrix.shape[-1]
    D2 = dist_matrix ** 2
    H = torch.eye(N, dtype=dist_matrix.dtype) - torch.ones(N, N, dtype=dist_matrix.dtype) / N
    B = -0.5 * (H @ D2 @ H)
    evals, evecs = torch.linalg.eigh(B)
    # descending order
    evals = evals.flip(-1)
    evecs = evecs.flip(-1)
    # Enforce sign convention: largest absolute value element is positive
    max_abs_idx = evecs.abs().argmax(dim=-2, keepdim=True)
    sign = torch.sign(torch.gather(evecs, -2, max_abs_idx))
    evecs = evecs * sign
    vals = evals[..., :n_components].clamp(min=0.0)
    coords = evecs[..., :n_components] * torch.sqrt(vals).unsqueeze(-2)
    return coords


class PhyloPositionalEmbedding(nn.Module):
    def __init__(self, embed_dim=32):
        super().__init__()
        self.mds_proj = nn.Linear(4, embed_dim)
        self.dist_proj = nn.Linear(1, embed_dim)

    def forward(self, dist_matrix):
        mds_coords = compute_mds_coordinates(dist_matrix, n_components=4)  # [batch, species, 4]
        phylo_pos = self.mds_proj(mds_coords)  # [batch, species, embed_dim]
        # relation-aware summary of each species' distances
        log_dist_weight = torch.log1p(1.0 / (dist_matrix + 1e-6))
        rel = self.dist_proj((log_dist_weight * dist_matrix).mean(dim=-1, keepdim=True))
        return phylo_pos + rel


def _dist(b, n):
    pts = torch.randn(b, n, 3)
    return torch.cdist(pts, pts)


def make_model():
    return PhyloPositionalEmbedding().eval()


def example_inputs():
    return (_dist(2, 9),)


def other_inputs():
    return [(_dist(3, 12),), (_dist(1, 7),)]


def probe_inputs():
    return other_inputs()

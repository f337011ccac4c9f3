"""PTv3 SerializedPooling (tier4/autoware-ml): points are gathered by serialized order and reduced
per pooled voxel with `segment_csr(feat[indices], idx_ptr, "max")`, implemented in eager as
`torch.segment_reduce(src, reduce=reduce, lengths=indptr[1:] - indptr[:-1])`. The PR had to swap in
an `autograd.Function` emitting a custom `autoware::SegmentCSR` node under
`torch.onnx.is_in_onnx_export()` because segment_reduce does not export; this is the code before that
bridge, in the export-mode path where the pooling metadata (indices, indptr) are graph inputs.

Source: https://github.com/tier4/autoware-ml/pull/24
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"feat": {0: "num_points"}, "indices": {0: "num_points"}, "idx_ptr": {0: "num_voxels_plus_1"}}
BLIND = "operators-58"


def segment_csr(src: torch.Tensor, indptr: torch.Tensor, reduce: str) -> torch.Tensor:
    """Run CSR segment reduction."""
    lengths = indptr[1:] - indptr[:-1]
    return torch.segment_reduce(src, reduce=reduce, lengths=lengths)


class SerializedPooling(nn.Module):
    """Pool serialized point groups into a coarser hierarchy level (export-mode metadata path)."""

    def __init__(self, in_channels: int = 32, out_channels: int = 64) -> None:
        super().__init__()
        self.proj = nn.Linear(in_channels, out_channels)
        self.norm = nn.BatchNorm1d(out_channels, eps=1e-3, momentum=0.01)
        self.act = nn.GELU()

    def forward(self, feat, indices, idx_ptr):
        scatter_feat = segment_csr(self.proj(feat)[indices], idx_ptr, "max")
        pooled = self.norm(scatter_feat)
        pooled = self.act(pooled)
        return pooled


def make_model():
    return SerializedPooling().eval()


def _pooling_inputs(n, m):
    # m pooled voxels, every one non-empty; indices sorts points by voxel
    cluster = torch.cat([torch.arange(m), torch.randint(0, m, (n - m,))])
    counts = torch.bincount(cluster, minlength=m)
    indices = torch.argsort(cluster)
    idx_ptr = torch.cat([counts.new_zeros(1), torch.cumsum(counts, dim=0)])
    return torch.randn(n, 32), indices, idx_ptr


def example_inputs():
    return _pooling_inputs(120, 30)


def other_inputs():
    return [_pooling_inputs(257, 41), _pooling_inputs(64, 9)]


def probe_inputs():
    return other_inputs()

"""FSDv2 (tusen-ai/SST) DynamicScatterVFE: point features are pooled per voxel by `scatter_v2`, which
groups points with `torch.unique(coors, return_inverse=True, dim=0)` and reduces them with
`torch_scatter.scatter_max(feat, unq_inv, dim=0)`; converting FSDv2 to ONNX fails on the scatter_max
op. torch_scatter is a C++ extension, so its scatter_max is ported here to native torch the way PyG
replaced it (scatter_reduce 'amax' with include_self=False, plus the argmax).

Source: https://github.com/tusen-ai/SST/issues/165
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"features": {0: "num_points"}, "coors": {0: "num_points"}}
BLIND = "operators-58"


def scatter_max(src, index, dim=0, dim_size=None):
    # torch_scatter.scatter_max(src, index, dim) -> (out, argmax), native-torch port
    if dim_size is None:
        dim_size = int(index.max()) + 1
    size = list(src.size())
    size[dim] = dim_size
    idx = index.unsqueeze(-1).expand_as(src)
    out = src.new_zeros(size).scatter_reduce_(dim, idx, src, reduce='amax', include_self=False)
    pos = torch.arange(src.size(dim), device=src.device).unsqueeze(-1).expand_as(src)
    pos = torch.where(src == out.gather(dim, idx), pos, torch.full_like(pos, src.size(dim)))
    argmax = torch.full(size, src.size(dim), dtype=torch.long, device=src.device)
    argmax = argmax.scatter_reduce_(dim, idx, pos, reduce='amin', include_self=True)
    return out, argmax


def scatter_v2(feat, coors, mode, return_inv=True, min_points=0, unq_inv=None, new_coors=None):
    assert feat.size(0) == coors.size(0)
    if mode == 'avg':
        mode = 'mean'

    if unq_inv is None:
        new_coors, unq_inv = torch.unique(coors, return_inverse=True, return_counts=False, dim=0)

    if mode == 'max':
        new_feat, argmax = scatter_max(feat, unq_inv, dim=0)
    else:
        raise NotImplementedError

    if not return_inv:
        return new_feat, new_coors
    else:
        return new_feat, new_coors, unq_inv


class VFELayer(nn.Sequential):
    def __init__(self, in_channels, out_channels):
        super().__init__(nn.Linear(in_channels, out_channels, bias=False),
                         nn.BatchNorm1d(out_channels, eps=1e-3, momentum=0.01),
                         nn.ReLU(inplace=True))


class DynamicScatterVFE(nn.Module):
    def __init__(self, in_channels=4, feat_channels=(32, 64), mode='max'):
        super().__init__()
        layers = []
        for i, out_c in enumerate(feat_channels):
            in_c = in_channels if i == 0 else feat_channels[i - 1] * 2
            layers.append(VFELayer(in_c, out_c))
        self.vfe_layers = nn.ModuleList(layers)
        self.mode = mode

    def map_voxel_center_to_point(self, voxel_mean, voxel2point_inds):
        return voxel_mean[voxel2point_inds]

    def forward(self, features, coors):
        new_coors = unq_inv_once = None
        for i, vfe in enumerate(self.vfe_layers):
            point_feats = vfe(features)
            voxel_feats, voxel_coors, unq_inv = scatter_v2(point_feats, coors, mode=self.mode, new_coors=new_coors, unq_inv=unq_inv_once)
            if i != len(self.vfe_layers) - 1:
                # need to concat voxel feats if it is not the last vfe
                feat_per_point = self.map_voxel_center_to_point(voxel_feats, unq_inv)
                features = torch.cat([point_feats, feat_per_point], dim=1)
        return voxel_feats, voxel_coors


def make_model():
    return DynamicScatterVFE().eval()


def _points(n):
    coors = torch.cat([torch.zeros(n, 1, dtype=torch.long),
                       torch.zeros(n, 1, dtype=torch.long),
                       torch.randint(0, 4, (n, 2))], dim=1)   # (batch, z, y, x), many shared voxels
    return torch.randn(n, 4), coors


def example_inputs():
    return _points(200)


def other_inputs():
    return [_points(317), _points(90)]


def probe_inputs():
    return other_inputs()

"""VoxelNet's FeatureNet scatters the per-voxel VFE features into the dense voxel grid with
`torch.sparse.FloatTensor(coordinate.t(), voxelwise, torch.Size([...])).to_dense()`; exporting it
fails with "Exporting the operator sparse_coo_tensor to ONNX opset version 11 is not supported"
(the report asks ONNX for a sparse_coo_tensor operator and names this model).

Source: https://github.com/onnx/onnx/issues/5213
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"feature": {1: "voxels"}, "coordinate": {1: "voxels"}}
BLIND = "operators-29"


class cfg:
    # the repo's config.py uses 35 points per voxel and a 10 x 400 x 352 grid (Car);
    # a small grid keeps the dense output small here
    VOXEL_POINT_COUNT = 35
    INPUT_DEPTH = 2
    INPUT_HEIGHT = 16
    INPUT_WIDTH = 12


class VFELayer(nn.Module):
    def __init__(self, in_channels, out_channels):
        super(VFELayer, self).__init__()

        self.in_channels = in_channels
        self.out_channels = out_channels
        self.units = int(out_channels / 2)

        self.dense = nn.Sequential(nn.Linear(self.in_channels, self.units), nn.ReLU())
        self.batch_norm = nn.BatchNorm1d(self.units)

    def forward(self, inputs, mask):
        # [ΣK, T, in_ch] -> [ΣK, T, units] -> [ΣK, units, T]
        tmp = self.dense(inputs).transpose(1, 2)
        # [ΣK, units, T] -> [ΣK, T, units]
        pointwise = self.batch_norm(tmp).transpose(1, 2)

        # [ΣK, 1, units]
        aggregated, _ = torch.max(pointwise, dim = 1, keepdim = True)

        # [ΣK, T, units]
        repeated = aggregated.expand(-1, cfg.VOXEL_POINT_COUNT, -1)

        # [ΣK, T, 2 * units]
        concatenated = torch.cat([pointwise, repeated], dim = 2)

        # [ΣK, T, 1] -> [ΣK, T, 2 * units]
        mask = mask.expand(-1, -1, 2 * self.units)

        concatenated = concatenated * mask.float()

        return concatenated


class FeatureNet(nn.Module):
    def __init__(self):
        super(FeatureNet, self).__init__()

        self.vfe1 = VFELayer(7, 32)
        self.vfe2 = VFELayer(32, 128)

    def forward(self, feature, coordinate):

        batch_size = len(feature)

        feature = torch.cat(tuple(feature), dim = 0)   # [ΣK, cfg.VOXEL_POINT_COUNT, 7]
        coordinate = torch.cat(tuple(coordinate), dim = 0)     # [ΣK, 4]; each row stores (batch, d, h, w)

        vmax, _ = torch.max(feature, dim = 2, keepdim = True)
        mask = (vmax != 0)  # [ΣK, T, 1]

        x = self.vfe1(feature, mask)
        x = self.vfe2(x, mask)

        # [ΣK, 128]
        voxelwise, _ = torch.max(x, dim = 1)

        outputs = torch.sparse.FloatTensor(coordinate.t(), voxelwise, torch.Size([batch_size, cfg.INPUT_DEPTH, cfg.INPUT_HEIGHT, cfg.INPUT_WIDTH, 128]))

        outputs = outputs.to_dense()

        return outputs


class VoxelNetMiddle(nn.Module):
    def __init__(self):
        super().__init__()
        self.feature = FeatureNet()
        self.middle = nn.Sequential(nn.Conv3d(128, 64, 3, stride=(2, 1, 1), padding=1),
                                    nn.BatchNorm3d(64), nn.ReLU())

    def forward(self, feature, coordinate):
        features = self.feature(feature, coordinate)          # [B, D, H, W, 128]
        return self.middle(features.permute(0, 4, 1, 2, 3))   # [B, 64, D', H, W]


def make_model():
    return VoxelNetMiddle().eval()


def _inputs(k, batch=2):
    grid = cfg.INPUT_DEPTH * cfg.INPUT_HEIGHT * cfg.INPUT_WIDTH
    feats, coords = [], []
    for b in range(batch):
        flat = torch.randperm(grid)[:k]
        d = flat // (cfg.INPUT_HEIGHT * cfg.INPUT_WIDTH)
        h = (flat // cfg.INPUT_WIDTH) % cfg.INPUT_HEIGHT
        w = flat % cfg.INPUT_WIDTH
        coords.append(torch.stack([torch.full_like(d, b), d, h, w], dim=1))
        f = torch.randn(k, cfg.VOXEL_POINT_COUNT, 7)
        n_pts = torch.randint(1, cfg.VOXEL_POINT_COUNT + 1, (k, 1, 1))
        f = f * (torch.arange(cfg.VOXEL_POINT_COUNT)[None, :, None] < n_pts)   # zero-padded points
        feats.append(f)
    return (torch.stack(feats), torch.stack(coords))


def example_inputs():
    return _inputs(20)


def other_inputs():
    return [_inputs(37), _inputs(9)]


def probe_inputs():
    return other_inputs()

"""BEVFusion camera-to-BEV `bev_pool`: frustum points outside the grid are dropped with a boolean mask
(`x = x[kept]`), points are sorted by voxel rank and summed per voxel with QuickCumsum (another `kept`
mask on rank changes), then written into the dense BEV grid; the per-sample batch index column is built
by a Python loop over B. Qualcomm's export patch replaces this pooling because its sizes come from the
data ("dynamic sizing") and pins the interval count to a fixed topk instead.

Source: https://github.com/quic/ai-hub-models/blob/main/qai_hub_models/models/bevfusion_det/model_patch.py
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"geom_feats": {0: "batch"}, "x": {0: "batch"}}
BLIND = "domains-72"


def gen_dx_bx(xbound, ybound, zbound):
    dx = torch.Tensor([row[2] for row in [xbound, ybound, zbound]])
    bx = torch.Tensor([row[0] + row[2] / 2.0 for row in [xbound, ybound, zbound]])
    nx = torch.LongTensor([int((row[1] - row[0]) / row[2]) for row in [xbound, ybound, zbound]])
    return dx, bx, nx


class QuickCumsum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, geom_feats, ranks):
        x = x.cumsum(0)
        kept = torch.ones(x.shape[0], device=x.device, dtype=torch.bool)
        kept[:-1] = ranks[1:] != ranks[:-1]

        x, geom_feats = x[kept], geom_feats[kept]
        x = torch.cat((x[:1], x[1:] - x[:-1]))

        # save kept for backward
        ctx.save_for_backward(kept)

        # no gradient for geom_feats
        ctx.mark_non_differentiable(geom_feats)

        return x, geom_feats


def bev_pool(feats, coords, B, D, H, W):
    assert feats.shape[0] == coords.shape[0]

    ranks = (
        coords[:, 0] * (W * D * B)
        + coords[:, 1] * (D * B)
        + coords[:, 2] * B
        + coords[:, 3]
    )
    indices = ranks.argsort()
    feats, coords, ranks = feats[indices], coords[indices], ranks[indices]

    x, coords = QuickCumsum.apply(feats, coords, ranks)
    out = torch.zeros((B, D, H, W, feats.shape[1]), dtype=feats.dtype, device=feats.device)
    out[coords[:, 3], coords[:, 2], coords[:, 0], coords[:, 1]] = x
    x = out.permute(0, 4, 1, 2, 3).contiguous()
    return x


class BaseTransform(nn.Module):
    def __init__(self, xbound=(-8.0, 8.0, 1.0), ybound=(-8.0, 8.0, 1.0), zbound=(-10.0, 10.0, 20.0)):
        super().__init__()
        dx, bx, nx = gen_dx_bx(xbound, ybound, zbound)
        self.dx = nn.Parameter(dx, requires_grad=False)
        self.bx = nn.Parameter(bx, requires_grad=False)
        self.nx = nn.Parameter(nx, requires_grad=False)

    def forward(self, geom_feats, x):
        B, N, D, H, W, C = x.shape
        Nprime = B * N * D * H * W

        # flatten x
        x = x.reshape(Nprime, C)

        # flatten indices
        geom_feats = ((geom_feats - (self.bx - self.dx / 2.0)) / self.dx).long()
        geom_feats = geom_feats.view(Nprime, 3)
        batch_ix = torch.cat(
            [
                torch.full([Nprime // B, 1], ix, device=x.device, dtype=torch.long)
                for ix in range(B)
            ]
        )
        geom_feats = torch.cat((geom_feats, batch_ix), 1)

        # filter out points that are outside box
        kept = (
            (geom_feats[:, 0] >= 0)
            & (geom_feats[:, 0] < self.nx[0])
            & (geom_feats[:, 1] >= 0)
            & (geom_feats[:, 1] < self.nx[1])
            & (geom_feats[:, 2] >= 0)
            & (geom_feats[:, 2] < self.nx[2])
        )
        x = x[kept]
        geom_feats = geom_feats[kept]

        x = bev_pool(x, geom_feats, B, self.nx[2], self.nx[0], self.nx[1])

        # collapse Z
        final = torch.cat(x.unbind(dim=2), 1)

        return final


def make_model():
    return BaseTransform().eval()


def _inputs(b, n=2, d=4, h=3, w=5, c=8):
    geom = torch.rand(b, n, d, h, w, 3) * torch.tensor([20.0, 20.0, 4.0]) - torch.tensor([10.0, 10.0, 2.0])
    return geom, torch.randn(b, n, d, h, w, c)


def example_inputs():
    return _inputs(2)


def other_inputs():
    return [_inputs(3), _inputs(1)]


def probe_inputs():
    return other_inputs()

"""CasP's fine-level matcher (FineHomo) regresses a four-point displacement per match window and turns it
into a homography with the torchgeometry `get_perspective_transform`, which solves the 8x8 DLT system
with `torch.linalg.solve(A, b)`; ONNX export of the matcher stalls because onnx has no linalg_solve.

Source: https://github.com/pq-chen/CasP/pull/4
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"feat_f0_unfold": {0: "matches"}, "feat_f1_unfold": {0: "matches"}}
BLIND = "operators-16"


def get_perspective_transform(src, dst):
    if not src.shape[-2:] == (4, 2):
        raise ValueError("Inputs must be a Bx4x2 tensor. Got {}"
                         .format(src.shape))

    def ax(p, q):
        ones = torch.ones_like(p)[..., 0:1]
        zeros = torch.zeros_like(p)[..., 0:1]
        return torch.cat(
            [p[:, 0:1], p[:, 1:2], ones, zeros, zeros, zeros,
             -p[:, 0:1] * q[:, 0:1], -p[:, 1:2] * q[:, 0:1]
             ], dim=1)

    def ay(p, q):
        ones = torch.ones_like(p)[..., 0:1]
        zeros = torch.zeros_like(p)[..., 0:1]
        return torch.cat(
            [zeros, zeros, zeros, p[:, 0:1], p[:, 1:2], ones,
             -p[:, 0:1] * q[:, 1:2], -p[:, 1:2] * q[:, 1:2]], dim=1)
    p = []
    p.append(ax(src[:, 0], dst[:, 0]))
    p.append(ay(src[:, 0], dst[:, 0]))

    p.append(ax(src[:, 1], dst[:, 1]))
    p.append(ay(src[:, 1], dst[:, 1]))

    p.append(ax(src[:, 2], dst[:, 2]))
    p.append(ay(src[:, 2], dst[:, 2]))

    p.append(ax(src[:, 3], dst[:, 3]))
    p.append(ay(src[:, 3], dst[:, 3]))

    # A is Bx8x8
    A = torch.stack(p, dim=1)

    # b is a Bx8x1
    b = torch.stack([
        dst[:, 0:1, 0], dst[:, 0:1, 1],
        dst[:, 1:2, 0], dst[:, 1:2, 1],
        dst[:, 2:3, 0], dst[:, 2:3, 1],
        dst[:, 3:4, 0], dst[:, 3:4, 1],
    ], dim=1)

    # solve the system Ax = b
    # X, LU = torch.gesv(b, A)
    X = torch.linalg.solve(A, b)

    # create variable to return
    batch_size = src.shape[0]
    M = torch.ones(batch_size, 9, device=src.device, dtype=src.dtype)
    M[..., :8] = torch.squeeze(X, dim=-1)
    return M.view(-1, 3, 3)  # Bx3x3


class FineHomo(nn.Module):
    def __init__(self, window_size=8, dim=32):
        super().__init__()
        self.W = self.window_size = window_size
        # stands in for the GMA update block: regresses the 2x2x2 corner displacement
        self.update_block_4 = nn.Sequential(
            nn.Conv2d(2 * dim, 64, 3, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(2), nn.Conv2d(64, 2, 1))

    def get_homo_now_k(self, four_point, k=1):
        N = four_point.shape[0]
        h, w = self.W, self.W
        four_point = four_point / k
        four_point_org = torch.zeros((2, 2, 2)).to(four_point.device)
        four_point_org[:, 0, 0] = torch.Tensor([0, 0])
        four_point_org[:, 0, 1] = torch.Tensor([w - 1, 0])
        four_point_org[:, 1, 0] = torch.Tensor([0, h - 1])
        four_point_org[:, 1, 1] = torch.Tensor([w - 1, h - 1])

        four_point_org = four_point_org.unsqueeze(0)
        four_point_org = four_point_org.repeat(N, 1, 1, 1)
        four_point_new = torch.autograd.Variable(four_point_org) + four_point
        four_point_org = four_point_org.flatten(2).permute(0, 2, 1)
        four_point_new = four_point_new.flatten(2).permute(0, 2, 1)
        H = get_perspective_transform(four_point_org, four_point_new)
        return H

    def forward(self, feat_f0_unfold, feat_f1_unfold):
        four_point = self.update_block_4(torch.cat([feat_f0_unfold, feat_f1_unfold], dim=1))
        H = self.get_homo_now_k(four_point, k=1)
        return H


def make_model():
    return FineHomo().eval()


def example_inputs():
    return (torch.randn(6, 32, 8, 8), torch.randn(6, 32, 8, 8))


def other_inputs():
    return [(torch.randn(11, 32, 8, 8), torch.randn(11, 32, 8, 8)),
            (torch.randn(3, 32, 8, 8), torch.randn(3, 32, 8, 8))]


def probe_inputs():
    return other_inputs()

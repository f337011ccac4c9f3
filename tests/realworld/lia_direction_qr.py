"""LIA (Latent Image Animator) motion-direction layer: the learned 512 x motion_dim direction
matrix is orthogonalised with `torch.qr` on every forward and the per-sample motion magnitudes are
applied through `torch.diag_embed`; exporting the LIA generator fails on the unsupported 'aten::qr'.

Source: https://github.com/iperov/DeepFaceLive/issues/142
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"wa": {0: "batch"}, "alpha": {0: "batch"}}
BLIND = "operators-5"


class Direction(nn.Module):
    def __init__(self, motion_dim):
        super(Direction, self).__init__()

        self.weight = nn.Parameter(torch.randn(512, motion_dim))

    def forward(self, input):
        # input: (bs*t) x 512

        weight = self.weight + 1e-8
        Q, R = torch.qr(weight)  # get eignvector, orthogonal [n1, n2, n3, n4]

        if input is None:
            return Q
        else:
            input_diag = torch.diag_embed(input)  # alpha, diagonal matrix
            out = torch.matmul(input_diag, Q.T)
            out = torch.sum(out, dim=1)

            return out


class MotionLatent(nn.Module):
    def __init__(self, motion_dim=20):
        super().__init__()
        self.direction = Direction(motion_dim)

    def forward(self, wa, alpha):
        # wa: bs x style_dim, alpha: bs x motion_dim
        directions = self.direction(alpha)
        latent = wa + directions
        return latent


def make_model():
    return MotionLatent()


def example_inputs():
    return (torch.randn(2, 512), torch.randn(2, 20))


def other_inputs():
    return [(torch.randn(3, 512), torch.randn(3, 20)), (torch.randn(1, 512), torch.randn(1, 20))]


def probe_inputs():
    return other_inputs()

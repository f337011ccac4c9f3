"""DUSt3R linear pts3d head (ibaiGorordo's DUSt3R ONNX port): the head postprocess maps the
predicted xyz to 3-D points with `xyz * torch.expm1(d)`; the export of the head failed and the
commit "Make head exportable" replaced `torch.expm1(d)` by `torch.exp(d) - 1` (the legacy
exporter has no symbolic for aten::expm1).

Source: https://github.com/ibaiGorordo/dust3r-pytorch-inference/commit/02716cc0bcbe1fcb8e763e48c9be0367f04e3254
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"d1_12": {0: "batch"}, "d2_12": {0: "batch"}}
BLIND = "operators-50"


def postprocess(out):
    """
    extract 3D points/confidence from prediction head output
    """
    fmap = out.permute(0, 2, 3, 1)  # B,H,W,3
    depth = reg_dense_depth(fmap[:, :, :, 0:3])
    conf = reg_dense_conf(fmap[:, :, :, 3])
    return depth, conf


def reg_dense_depth(xyz):
    """
    extract 3D points from prediction head output
    """

    # distance to origin
    d = xyz.norm(dim=-1, keepdim=True)
    xyz = xyz / d.clip(min=1e-8)

    return xyz * torch.expm1(d)


def reg_dense_conf(x, vmin=1, vmax=torch.inf):
    """
    extract confidence from prediction head output
    """
    return vmin + x.exp().clip(max=vmax-vmin)


class LinearPts3d(nn.Module):
    """
    Linear head for dust3r
    Each token outputs: - 16x16 3D points (+ confidence)
    """

    def __init__(self, width=512, height=512, patch_size=16, dec_embed_dim=768, has_conf=True):
        super().__init__()
        self.patch_size = patch_size
        self.has_conf = has_conf
        self.num_h = height // patch_size
        self.num_w = width // patch_size

        self.proj = nn.Linear(dec_embed_dim, (3 + has_conf)*self.patch_size**2)

    def forward(self, tokens_12):
        B, S, D = tokens_12.shape

        # extract 3D points
        feat = self.proj(tokens_12)  # B,S,D
        feat = feat.transpose(-1, -2).view(B, -1, self.num_h, self.num_w)
        feat = F.pixel_shuffle(feat, self.patch_size)  # B,3,H,W

        # permute + norm depth
        return postprocess(feat)


class Dust3rHead(nn.Module):
    def __init__(self, width=128, height=96, dec_embed_dim=96):
        super().__init__()
        self.downstream_head1 = LinearPts3d(width, height, dec_embed_dim=dec_embed_dim)
        self.downstream_head2 = LinearPts3d(width, height, dec_embed_dim=dec_embed_dim)

    def forward(self, d1_12, d2_12):
        pts3d1, conf1 = self.downstream_head1(d1_12.float())
        pts3d2, conf2 = self.downstream_head2(d2_12.float())

        return pts3d1, conf1, pts3d2, conf2


def make_model():
    return Dust3rHead().eval()


def example_inputs():
    # 96x128 image, 16x16 patches -> 6*8 = 48 decoder tokens
    return (torch.randn(2, 48, 96) * 0.1, torch.randn(2, 48, 96) * 0.1)


def other_inputs():
    return [(torch.randn(3, 48, 96) * 0.1, torch.randn(3, 48, 96) * 0.1),
            (torch.randn(1, 48, 96) * 0.1, torch.randn(1, 48, 96) * 0.1)]


def probe_inputs():
    return other_inputs()

"""SMPLer-X whole-body mesh recovery: the face regressor predicts a 6D jaw pose that `rot6d_to_axis_angle`
turns into a rotation matrix with `b3 = torch.cross(b1, b2)` (no `dim`); the reporter's torch.onnx.export
fails at `jaw_pose = rot6d_to_axis_angle(jaw_pose)` because the exporter cannot infer the shape of the
first argument of cross (`input.sizes=[None, None] ... dim=None`) and so cannot pick the default dimension.

Source: https://github.com/MotrixLab/SMPLer-X/issues/17
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "exporter-defaults"
FAMILY = "operators"
DYNAMIC = {"img_feat": {0: "batch"}}
BLIND = "domains-34"


def make_linear_layers(feat_dims, relu_final=True, use_bn=False):
    layers = []
    for i in range(len(feat_dims) - 1):
        layers.append(nn.Linear(feat_dims[i], feat_dims[i + 1]))
        # Do not use ReLU for final estimation
        if i < len(feat_dims) - 2 or (i == len(feat_dims) - 2 and relu_final):
            if use_bn:
                layers.append(nn.BatchNorm1d(feat_dims[i + 1]))
            layers.append(nn.ReLU(inplace=True))
    return nn.Sequential(*layers)


def rot6d_to_axis_angle(x):
    batch_size = x.shape[0]
    x = x.view(-1, 3, 2)
    a1 = x[:, :, 0]
    a2 = x[:, :, 1]
    b1 = F.normalize(a1)
    b2 = F.normalize(a2 - torch.einsum('bi,bi->b', b1, a2).unsqueeze(-1) * b1)
    b3 = torch.cross(b1, b2)
    rot_mat = torch.stack((b1, b2, b3), dim=-1)
    rot_mat = torch.cat([rot_mat, torch.zeros((batch_size, 3, 1)).float()], 2)
    return rot_mat


class FaceRegressor(nn.Module):
    def __init__(self, feat_dim=64):
        super(FaceRegressor, self).__init__()
        self.expr_out = make_linear_layers([feat_dim, 10], relu_final=False)
        self.jaw_pose_out = make_linear_layers([feat_dim, 6], relu_final=False)

    def forward(self, img_feat):
        expr_param = self.expr_out(img_feat.mean((2, 3)))
        jaw_pose = self.jaw_pose_out(img_feat.mean((2, 3)))
        jaw_pose = rot6d_to_axis_angle(jaw_pose)
        return expr_param, jaw_pose


def make_model():
    return FaceRegressor()


def example_inputs():
    return (torch.randn(2, 64, 8, 8),)


def other_inputs():
    return [(torch.randn(5, 64, 8, 8),), (torch.randn(1, 64, 8, 8),)]


def probe_inputs():
    return other_inputs()

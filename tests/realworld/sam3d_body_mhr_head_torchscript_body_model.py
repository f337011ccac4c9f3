"""SAM 3D Body: the MHR head decodes the pose token into body-model parameters and runs them through the
Momentum Human Rig, which is loaded as a TorchScript module (`self.mhr = torch.jit.load(mhr_model_path)`) and
called inside forward; the reporter's ONNX conversion "failed because HMR is a TorchScript model and cannot be
converted".

Source: https://github.com/facebookresearch/sam-3d-body/issues/106
"""
from typing import Optional

import torch
import torch.nn as nn
from torch.nn import functional as F

CLASS = "exporter-defaults"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-34"


class MHR(nn.Module):
    """Stand-in for the TorchScript rig that torch.jit.load returns (linear blend shapes + skeleton state)."""

    def __init__(self, num_verts: int = 64, num_joints: int = 8, num_shape: int = 45, num_params: int = 24):
        super().__init__()
        self.template = nn.Parameter(torch.randn(num_verts, 3))
        self.shape_dirs = nn.Parameter(torch.randn(num_shape, num_verts * 3) * 0.01)
        self.pose_dirs = nn.Parameter(torch.randn(num_params, num_verts * 3) * 0.01)
        self.expr_dirs = nn.Parameter(torch.randn(8, num_verts * 3) * 0.01)
        self.joint_regressor = nn.Parameter(torch.rand(num_joints, num_verts))
        self.num_params = num_params

    def forward(self, shape_params: torch.Tensor, model_params: torch.Tensor,
                expr_params: Optional[torch.Tensor] = None):
        b = shape_params.shape[0]
        offsets = shape_params @ self.shape_dirs + model_params[:, :self.num_params] @ self.pose_dirs
        if expr_params is not None:
            offsets = offsets + expr_params @ self.expr_dirs
        verts = self.template[None] + offsets.view(b, -1, 3)
        joints = torch.einsum("jv,bvc->bjc", self.joint_regressor, verts)
        quats = F.normalize(torch.cat([joints, torch.ones_like(joints[..., :1])], dim=-1), dim=-1)
        skel_state = torch.cat([joints, quats, torch.ones_like(joints[..., :1])], dim=-1)
        return verts * 100, skel_state * 100


def rot6d_to_rotmat(x):
    x = x.reshape(-1, 2, 3).permute(0, 2, 1).contiguous()
    a1 = x[:, :, 0]
    a2 = x[:, :, 1]
    b1 = F.normalize(a1)
    b2 = F.normalize(a2 - torch.einsum("bi,bi->b", b1, a2).unsqueeze(-1) * b1)
    b3 = torch.linalg.cross(b1, b2)
    return torch.stack((b1, b2, b3), dim=-1)


class MHRHead(nn.Module):
    def __init__(self, input_dim=64, num_shape_comps=45, num_scale_comps=8, body_cont_dim=16, num_face_comps=8):
        super().__init__()
        self.num_shape_comps = num_shape_comps
        self.num_scale_comps = num_scale_comps
        self.body_cont_dim = body_cont_dim
        self.num_face_comps = num_face_comps
        self.npose = 6 + self.body_cont_dim + self.num_shape_comps + self.num_scale_comps + self.num_face_comps
        self.proj = nn.Sequential(nn.Linear(input_dim, input_dim // 8), nn.ReLU(), nn.Linear(input_dim // 8, self.npose))
        self.scale_mean = nn.Parameter(torch.zeros(4), requires_grad=False)
        self.scale_comps = nn.Parameter(torch.randn(num_scale_comps, 4), requires_grad=False)
        # Load MHR itself (the checkpoint ships it as TorchScript: torch.jit.load(mhr_model_path))
        self.mhr = torch.jit.script(MHR())
        for param in self.mhr.parameters():
            param.requires_grad = False

    def mhr_forward(self, global_trans, global_rot, body_pose_params, scale_params, shape_params, expr_params=None):
        scales = self.scale_mean[None, :] + scale_params @ self.scale_comps
        full_pose_params = torch.cat([global_trans * 10, global_rot, body_pose_params], dim=1)
        model_params = torch.cat([full_pose_params, scales], dim=1)
        curr_skinned_verts, curr_skel_state = self.mhr(shape_params, model_params, expr_params)
        curr_joint_coords, curr_joint_quats, _ = torch.split(curr_skel_state, [3, 4, 1], dim=2)
        curr_skinned_verts = curr_skinned_verts / 100
        curr_joint_coords = curr_joint_coords / 100
        return curr_skinned_verts, curr_joint_coords

    def forward(self, x):
        batch_size = x.shape[0]
        pred = self.proj(x)
        count = 6
        global_rot_6d = pred[:, :count]
        global_rot_rotmat = rot6d_to_rotmat(global_rot_6d)
        global_rot_euler = torch.stack([
            torch.atan2(global_rot_rotmat[:, 2, 1], global_rot_rotmat[:, 2, 2]),
            torch.asin(-global_rot_rotmat[:, 2, 0].clamp(-1, 1)),
            torch.atan2(global_rot_rotmat[:, 1, 0], global_rot_rotmat[:, 0, 0]),
        ], dim=-1)
        global_trans = torch.zeros_like(global_rot_euler)
        pred_pose_cont = pred[:, count: count + self.body_cont_dim]
        count += self.body_cont_dim
        pred_shape = pred[:, count: count + self.num_shape_comps]
        count += self.num_shape_comps
        pred_scale = pred[:, count: count + self.num_scale_comps]
        count += self.num_scale_comps
        pred_face = pred[:, count: count + self.num_face_comps] * 0
        verts, jcoords = self.mhr_forward(global_trans, global_rot_euler, pred_pose_cont, pred_scale, pred_shape,
                                          expr_params=pred_face)
        return verts.reshape(batch_size, -1, 3), jcoords.reshape(batch_size, -1, 3)


def make_model():
    return MHRHead().eval()


def example_inputs():
    return (torch.randn(2, 64),)


def other_inputs():
    return [(torch.randn(5, 64),), (torch.randn(1, 64),)]


def probe_inputs():
    return other_inputs()

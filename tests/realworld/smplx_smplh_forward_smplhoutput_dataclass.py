"""smplx SMPL+H body model (body + MANO hands, PCA hand poses) whose forward runs linear blend
skinning and returns an `SMPLHOutput` dataclass (smplx `ModelOutput` with `__getitem__`/`keys`/
`items`) instead of tensors. nosmpl's ONNX port of this model had to comment the `SMPLHOutput(...)`
construction out and return `vertices, joints, self.faces_tensor` under
`torch.onnx.is_in_onnx_export()` to export SMPL-H to ONNX at all. (Kinematic-chain skinning trimmed.)

Source: https://github.com/lucasjinreal/nosmpl/commit/633cf707663df928e2a6e4c3442205a7620ca0ba
"""
from dataclasses import dataclass, fields
from typing import NewType, Optional

import numpy as np
import torch
from torch import nn

CLASS = "outputs"
FAMILY = "tensor_data"
DYNAMIC = {
    "betas": {0: "batch"},
    "global_orient": {0: "batch"},
    "body_pose": {0: "batch"},
    "left_hand_pose": {0: "batch"},
    "right_hand_pose": {0: "batch"},
    "transl": {0: "batch"},
}
BLIND = "domains-78"

Tensor = NewType('Tensor', torch.Tensor)


@dataclass
class ModelOutput:
    vertices: Optional[Tensor] = None
    joints: Optional[Tensor] = None
    full_pose: Optional[Tensor] = None
    global_orient: Optional[Tensor] = None
    transl: Optional[Tensor] = None
    v_shaped: Optional[Tensor] = None

    def __getitem__(self, key):
        return getattr(self, key)

    def get(self, key, default=None):
        return getattr(self, key, default)

    def __iter__(self):
        return self.keys()

    def keys(self):
        keys = [t.name for t in fields(self)]
        return iter(keys)

    def values(self):
        values = [getattr(self, t.name) for t in fields(self)]
        return iter(values)

    def items(self):
        data = [(t.name, getattr(self, t.name)) for t in fields(self)]
        return iter(data)


@dataclass
class SMPLOutput(ModelOutput):
    betas: Optional[Tensor] = None
    body_pose: Optional[Tensor] = None


@dataclass
class SMPLHOutput(SMPLOutput):
    left_hand_pose: Optional[Tensor] = None
    right_hand_pose: Optional[Tensor] = None
    transl: Optional[Tensor] = None


def blend_shapes(betas: Tensor, shape_disps: Tensor) -> Tensor:
    blend_shape = torch.einsum('bl,mkl->bmk', [betas, shape_disps])
    return blend_shape


def vertices2joints(J_regressor: Tensor, vertices: Tensor) -> Tensor:
    return torch.einsum('bik,ji->bjk', [vertices, J_regressor])


def batch_rodrigues(rot_vecs: Tensor, epsilon: float = 1e-8) -> Tensor:
    batch_size = rot_vecs.shape[0]
    device, dtype = rot_vecs.device, rot_vecs.dtype
    angle = torch.norm(rot_vecs + 1e-8, dim=1, keepdim=True)
    rot_dir = rot_vecs / angle
    cos = torch.unsqueeze(torch.cos(angle), dim=1)
    sin = torch.unsqueeze(torch.sin(angle), dim=1)
    rx, ry, rz = torch.split(rot_dir, 1, dim=1)
    zeros = torch.zeros((batch_size, 1), dtype=dtype, device=device)
    K = torch.cat([zeros, -rz, ry, rz, zeros, -rx, -ry, rx, zeros], dim=1) \
        .view((batch_size, 3, 3))
    ident = torch.eye(3, dtype=dtype, device=device).unsqueeze(dim=0)
    rot_mat = ident + sin * K + (1 - cos) * torch.bmm(K, K)
    return rot_mat


def lbs(betas, pose, v_template, shapedirs, posedirs, J_regressor, parents, lbs_weights,
        pose2rot=True):
    batch_size = max(betas.shape[0], pose.shape[0])
    device, dtype = betas.device, betas.dtype
    v_shaped = v_template + blend_shapes(betas, shapedirs)
    J = vertices2joints(J_regressor, v_shaped)
    ident = torch.eye(3, dtype=dtype, device=device)
    rot_mats = batch_rodrigues(pose.view(-1, 3)).view([batch_size, -1, 3, 3])
    pose_feature = (rot_mats[:, 1:, :, :] - ident).view([batch_size, -1])
    pose_offsets = torch.matmul(pose_feature, posedirs).view(batch_size, -1, 3)
    v_posed = pose_offsets + v_shaped
    return v_posed, J


class VertexJointSelector(nn.Module):
    def __init__(self, extra_joints_idxs):
        super(VertexJointSelector, self).__init__()
        self.register_buffer('extra_joints_idxs', torch.tensor(extra_joints_idxs, dtype=torch.long))

    def forward(self, vertices, joints):
        extra_joints = torch.index_select(vertices, 1, self.extra_joints_idxs.to(torch.long))
        joints = torch.cat([joints, extra_joints], dim=1)
        return joints


class SMPLH(nn.Module):
    NUM_BODY_JOINTS = 21
    NUM_HAND_JOINTS = 15
    NUM_JOINTS = NUM_BODY_JOINTS + 2 * NUM_HAND_JOINTS

    def __init__(self, num_verts=200, num_betas=10, num_pca_comps=6):
        super(SMPLH, self).__init__()
        rng = np.random.RandomState(0)
        J = self.NUM_JOINTS + 1
        self.use_pca = True
        self.joint_mapper = None
        self.register_buffer('v_template', torch.tensor(rng.randn(num_verts, 3), dtype=torch.float32))
        self.register_buffer('shapedirs', torch.tensor(rng.randn(num_verts, 3, num_betas) * 0.01, dtype=torch.float32))
        self.register_buffer('posedirs', torch.tensor(rng.randn(self.NUM_JOINTS * 9, num_verts * 3) * 0.01, dtype=torch.float32))
        self.register_buffer('J_regressor', torch.tensor(rng.dirichlet(np.ones(num_verts), J), dtype=torch.float32))
        self.register_buffer('parents', torch.tensor(np.arange(-1, J - 1), dtype=torch.long))
        self.register_buffer('lbs_weights', torch.tensor(rng.dirichlet(np.ones(J), num_verts), dtype=torch.float32))
        self.register_buffer('left_hand_components', torch.tensor(rng.randn(num_pca_comps, 45), dtype=torch.float32))
        self.register_buffer('right_hand_components', torch.tensor(rng.randn(num_pca_comps, 45), dtype=torch.float32))
        hands_mean = torch.tensor(rng.randn(90) * 0.1, dtype=torch.float32)
        self.register_buffer('pose_mean', torch.cat([torch.zeros(3 + 3 * self.NUM_BODY_JOINTS), hands_mean]))
        self.vertex_joint_selector = VertexJointSelector(list(range(0, num_verts, 10))[:21])
        # default pose / shape parameters of the module (batch_size = 1)
        self.betas = nn.Parameter(torch.zeros([1, num_betas]))
        self.global_orient = nn.Parameter(torch.zeros([1, 3]))
        self.body_pose = nn.Parameter(torch.zeros([1, self.NUM_BODY_JOINTS * 3]))
        self.left_hand_pose = nn.Parameter(torch.zeros([1, num_pca_comps]))
        self.right_hand_pose = nn.Parameter(torch.zeros([1, num_pca_comps]))
        self.transl = nn.Parameter(torch.zeros([1, 3]))

    def forward(self, betas=None, global_orient=None, body_pose=None, left_hand_pose=None,
                right_hand_pose=None, transl=None, return_verts=True, return_full_pose=False,
                pose2rot=True, **kwargs) -> SMPLHOutput:
        # If no shape and pose parameters are passed along, then use the
        # ones from the module
        global_orient = (global_orient if global_orient is not None else
                         self.global_orient)
        body_pose = body_pose if body_pose is not None else self.body_pose
        betas = betas if betas is not None else self.betas
        left_hand_pose = (left_hand_pose if left_hand_pose is not None else
                          self.left_hand_pose)
        right_hand_pose = (right_hand_pose if right_hand_pose is not None else
                           self.right_hand_pose)

        apply_trans = transl is not None or hasattr(self, 'transl')
        if transl is None:
            if hasattr(self, 'transl'):
                transl = self.transl

        if self.use_pca:
            left_hand_pose = torch.einsum(
                'bi,ij->bj', [left_hand_pose, self.left_hand_components])
            right_hand_pose = torch.einsum(
                'bi,ij->bj', [right_hand_pose, self.right_hand_components])

        full_pose = torch.cat([global_orient, body_pose,
                               left_hand_pose,
                               right_hand_pose], dim=1)
        full_pose += self.pose_mean

        vertices, joints = lbs(betas, full_pose, self.v_template,
                               self.shapedirs, self.posedirs,
                               self.J_regressor, self.parents,
                               self.lbs_weights, pose2rot=pose2rot)

        # Add any extra joints that might be needed
        joints = self.vertex_joint_selector(vertices, joints)
        if self.joint_mapper is not None:
            joints = self.joint_mapper(joints)

        if apply_trans:
            joints += transl.unsqueeze(dim=1)
            vertices += transl.unsqueeze(dim=1)

        output = SMPLHOutput(vertices=vertices if return_verts else None,
                             joints=joints,
                             betas=betas,
                             global_orient=global_orient,
                             body_pose=body_pose,
                             left_hand_pose=left_hand_pose,
                             right_hand_pose=right_hand_pose,
                             full_pose=full_pose if return_full_pose else None)

        return output


def make_model():
    return SMPLH().eval()


def _inputs(b):
    return (torch.randn(b, 10), torch.randn(b, 3) * 0.3, torch.randn(b, 63) * 0.3,
            torch.randn(b, 6), torch.randn(b, 6), torch.randn(b, 3))


def example_inputs():
    return _inputs(2)


def other_inputs():
    return [_inputs(3), _inputs(1)]


def probe_inputs():
    return other_inputs()

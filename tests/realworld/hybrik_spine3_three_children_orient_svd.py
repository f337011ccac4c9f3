"""HybrIK (3D human pose/shape) analytic inverse kinematics: the spine3 joint has three kinematic
children, so its rotation is solved with a batched Kabsch step, `U, _, V = torch.svd(S)` then
`rot_mat = torch.bmm(V, U.transpose(1, 2))`. Trying to export HybrIK to ONNX hits the two SVD nodes of
the graph: "The SVD operator is not present in the ONNX standard" and the export was abandoned.

Source: https://github.com/ailia-ai/ailia-models/issues/814
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {
    "rel_pose_skeleton": {0: "batch"},
    "rel_rest_pose": {0: "batch"},
    "rot_mat_chain_parent": {0: "batch"},
}
BLIND = "operators-14"


def batch_get_3children_orient_svd(rel_pose_skeleton, rel_rest_pose, rot_mat_chain_parent, children_list, dtype):
    rest_mat = []
    target_mat = []
    for c, child in enumerate(children_list):
        if isinstance(rel_pose_skeleton, list):
            target = rel_pose_skeleton[c].clone()
            template = rel_rest_pose[c].clone()
        else:
            target = rel_pose_skeleton[:, child].clone()
            template = rel_rest_pose[:, child].clone()

        target = torch.matmul(
            rot_mat_chain_parent.transpose(1, 2),
            target)

        target_mat.append(target)
        rest_mat.append(template)

    rest_mat = torch.cat(rest_mat, dim=2)
    target_mat = torch.cat(target_mat, dim=2)
    S = rest_mat.bmm(target_mat.transpose(1, 2))

    U, _, V = torch.svd(S)

    rot_mat = torch.bmm(V, U.transpose(1, 2))
    return rot_mat


class Spine3IK(nn.Module):
    def __init__(self):
        super().__init__()
        # SMPL kinematic tree (first 15 joints): spine3 (9) -> neck (12), left collar (13), right collar (14)
        self.parents = [-1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9]
        self.spine3 = 9
        self.children_list = [i for i, p in enumerate(self.parents) if p == self.spine3]

    def forward(self, rel_pose_skeleton, rel_rest_pose, rot_mat_chain_parent):
        rot_mat = batch_get_3children_orient_svd(
            rel_pose_skeleton, rel_rest_pose, rot_mat_chain_parent, self.children_list, rel_pose_skeleton.dtype)
        return torch.matmul(rot_mat_chain_parent, rot_mat)


def make_model():
    return Spine3IK()


def _rot(b):
    q = torch.nn.functional.normalize(torch.randn(b, 4), dim=1)
    w, x, y, z = q.unbind(1)
    return torch.stack([
        1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
        2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
        2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], 1).view(b, 3, 3)


def _inputs(b):
    return (torch.randn(b, 15, 3, 1), torch.randn(b, 15, 3, 1), _rot(b))


def example_inputs():
    return _inputs(2)


def other_inputs():
    return [_inputs(4), _inputs(1)]


def probe_inputs():
    return other_inputs()

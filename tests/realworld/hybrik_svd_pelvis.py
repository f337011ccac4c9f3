"""HybrIK inverse kinematics: the pelvis orientation is solved with a batched Kabsch step,
`U, _, V = torch.svd(S)` followed by `torch.det(torch.bmm(V, U.transpose(1, 2)))`; "Exporting the
operator ::svd to ONNX opset version 13 is not supported" (trimmed to the SVD part of
batch_get_pelvis_orient_svd; the pelvis children list is computed once in __init__).

Source: https://github.com/pytorch/pytorch/issues/81084
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"rel_pose_skeleton": {0: "batch"}, "rel_rest_pose": {0: "batch"}}
BLIND = "operators-1"


def batch_get_pelvis_orient_svd(rel_pose_skeleton, rel_rest_pose, pelvis_child):
    rest_mat = []
    target_mat = []
    for child in pelvis_child:
        rest_mat.append(rel_rest_pose[:, child].clone())
        target_mat.append(rel_pose_skeleton[:, child].clone())

    rest_mat = torch.cat(rest_mat, dim=2)
    target_mat = torch.cat(target_mat, dim=2)
    S = rest_mat.bmm(target_mat.transpose(1, 2))

    U, _, V = torch.svd(S)

    det_u_v = torch.det(torch.bmm(V, U.transpose(1, 2)))
    det_modify_mat = torch.eye(3, device=U.device).unsqueeze(0).expand(U.shape[0], -1, -1).clone()
    det_modify_mat[:, 2, 2] = det_u_v
    rot_mat = torch.bmm(torch.bmm(V, det_modify_mat), U.transpose(1, 2))
    return rot_mat


class PelvisIK(nn.Module):
    def __init__(self):
        super().__init__()
        parents = [-1, 0, 0, 0, 1, 2, 3, 4, 5]
        children = [3, 4, 5, 6, 7, 8, -1, -1, -1]
        self.pelvis_child = [children[0]]
        for i in range(1, len(parents)):
            if parents[i] == 0 and i not in self.pelvis_child:
                self.pelvis_child.append(i)

    def forward(self, rel_pose_skeleton, rel_rest_pose):
        return batch_get_pelvis_orient_svd(rel_pose_skeleton, rel_rest_pose, self.pelvis_child)


def make_model():
    return PelvisIK()


def example_inputs():
    return (torch.randn(2, 9, 3, 1), torch.randn(2, 9, 3, 1))


def other_inputs():
    return [(torch.randn(4, 9, 3, 1), torch.randn(4, 9, 3, 1)),
            (torch.randn(1, 9, 3, 1), torch.randn(1, 9, 3, 1))]


def probe_inputs():
    return other_inputs()

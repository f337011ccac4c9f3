"""OpenPCDet / pointnet2 stack: farthest point sampling is a `torch.autograd.Function`
(`FarthestPointSampling.apply(xyz, npoint)`, marked non-differentiable) around the sampling kernel; export
fails with "ONNX export failed: Couldn't export Python operator FarthestPointSampling". The CUDA kernel is
replaced by the equivalent torch loop.

Source: https://github.com/open-mmlab/OpenPCDet/issues/992
"""
import torch
from torch import nn
from torch.autograd import Function

CLASS = "autograd-function"
FAMILY = "operators"
DYNAMIC = {"xyz": {0: "batch", 1: "points"}}
BLIND = "domains-1"


class FarthestPointSampling(Function):
    @staticmethod
    def forward(ctx, xyz, npoint):
        """
        :param xyz: (B, N, 3) where N > npoint
        :param npoint: int, number of features in the sampled set
        :return: output: (B, npoint) tensor containing the set
        """
        assert xyz.is_contiguous()
        B, N, _ = xyz.size()
        output = torch.zeros(B, npoint, dtype=torch.int32)
        temp = torch.full((B, N), 1e10)
        farthest = torch.zeros(B, dtype=torch.long)
        batch_indices = torch.arange(B)
        for i in range(npoint):
            output[:, i] = farthest.int()
            centroid = xyz[batch_indices, farthest].view(B, 1, 3)
            temp = torch.minimum(temp, ((xyz - centroid) ** 2).sum(-1))
            farthest = temp.argmax(-1)
        ctx.mark_non_differentiable(output)
        return output

    @staticmethod
    def backward(xyz, a=None):
        return None, None


farthest_point_sample = furthest_point_sample = FarthestPointSampling.apply


class StackSAModuleMSG(nn.Module):
    def __init__(self, npoint=8):
        super().__init__()
        self.npoint = npoint
        self.mlp = nn.Linear(3, 16)

    def forward(self, xyz):
        idx = furthest_point_sample(xyz.contiguous(), self.npoint).long()
        new_xyz = torch.gather(xyz, 1, idx.unsqueeze(-1).expand(-1, -1, 3))
        return new_xyz, self.mlp(new_xyz)


def make_model():
    return StackSAModuleMSG()


def example_inputs():
    return (torch.rand(2, 64, 3),)


def other_inputs():
    return [(torch.rand(3, 100, 3),), (torch.rand(1, 40, 3),)]


def probe_inputs():
    return other_inputs()

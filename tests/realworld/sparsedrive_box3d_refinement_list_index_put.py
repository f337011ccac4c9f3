"""SparseDrive / Sparse4D (end-to-end camera 3-D detection + tracking) refines its 3-D box anchors in
SparseBox3DRefinementModule with `output[..., self.refine_state] = output[..., self.refine_state] +
anchor[..., self.refine_state]` (a Python list of box-state columns as the index); ONNX export fails in the
symbolic conversion of that `index_put` ("INTERNAL ASSERT FAILED"), and the reporter's workaround replaces the
list index with a slice.

Source: https://github.com/swc-17/SparseDrive/issues/106
"""
import torch
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {
    "instance_feature": {0: "batch", 1: "num_anchor"},
    "anchor": {0: "batch", 1: "num_anchor"},
    "anchor_embed": {0: "batch", 1: "num_anchor"},
    "time_interval": {0: "batch"},
}
BLIND = "domains-14"

# projects/mmdet3d_plugin/core/box3d.py
X, Y, Z, W, L, H, SIN_YAW, COS_YAW, VX, VY, VZ = list(range(11))


def linear_relu_ln(embed_dims, in_loops, out_loops, input_dims=None):
    if input_dims is None:
        input_dims = embed_dims
    layers = []
    for _ in range(out_loops):
        for _ in range(in_loops):
            layers.append(nn.Linear(input_dims, embed_dims))
            layers.append(nn.ReLU(inplace=True))
            input_dims = embed_dims
        layers.append(nn.LayerNorm(embed_dims))
    return layers


class Scale(nn.Module):
    """mmcv.cnn.Scale"""

    def __init__(self, scale=1.0):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(scale, dtype=torch.float))

    def forward(self, x):
        return x * self.scale


class SparseBox3DRefinementModule(nn.Module):
    def __init__(self, embed_dims=256, output_dim=11, num_cls=10, normalize_yaw=False, refine_yaw=False,
                 with_cls_branch=True, with_quality_estimation=False):
        super(SparseBox3DRefinementModule, self).__init__()
        self.embed_dims = embed_dims
        self.output_dim = output_dim
        self.num_cls = num_cls
        self.normalize_yaw = normalize_yaw
        self.refine_yaw = refine_yaw

        self.refine_state = [X, Y, Z, W, L, H]
        if self.refine_yaw:
            self.refine_state += [SIN_YAW, COS_YAW]

        self.layers = nn.Sequential(
            *linear_relu_ln(embed_dims, 2, 2),
            nn.Linear(self.embed_dims, self.output_dim),
            Scale([1.0] * self.output_dim),
        )
        self.with_cls_branch = with_cls_branch
        if with_cls_branch:
            self.cls_layers = nn.Sequential(
                *linear_relu_ln(embed_dims, 1, 2),
                nn.Linear(self.embed_dims, self.num_cls),
            )
        self.with_quality_estimation = with_quality_estimation

    def forward(self, instance_feature, anchor, anchor_embed, time_interval):
        feature = instance_feature + anchor_embed
        output = self.layers(feature)
        output[..., self.refine_state] = (
            output[..., self.refine_state] + anchor[..., self.refine_state]
        )
        if self.normalize_yaw:
            output[..., [SIN_YAW, COS_YAW]] = torch.nn.functional.normalize(
                output[..., [SIN_YAW, COS_YAW]], dim=-1
            )
        if self.output_dim > 8:
            if not isinstance(time_interval, torch.Tensor):
                time_interval = instance_feature.new_tensor(time_interval)
            translation = torch.transpose(output[..., VX:], 0, -1)
            velocity = torch.transpose(translation / time_interval, 0, -1)
            output[..., VX:] = velocity + anchor[..., VX:]

        cls = self.cls_layers(instance_feature)
        return output, cls


def make_model():
    return SparseBox3DRefinementModule(embed_dims=32, refine_yaw=True, normalize_yaw=True).eval()


def _inputs(bs, n):
    return (torch.randn(bs, n, 32), torch.randn(bs, n, 11), torch.randn(bs, n, 32),
            torch.rand(bs) * 0.5 + 0.25)


def example_inputs():
    return _inputs(2, 50)


def other_inputs():
    return [_inputs(3, 70), _inputs(1, 20)]


def probe_inputs():
    return other_inputs()

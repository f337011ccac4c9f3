"""Self-supervised depth (monodepth2-style) BackprojectDepth: the camera intrinsics are inverted in the
graph with `inv_K = torch.inverse(K)` and the depth map is lifted to a point cloud
`depth * (inv_K[:, :3, :3] @ pix_coords)`. ONNX has no matrix-inverse operator, so torchlib leaves
`aten::linalg_inv` unimplemented (the PR mapping it to com.microsoft::Inverse was closed, "we only want
to use ONNX domain operators") and the TorchScript exporter rejects `aten::linalg_inv` as well.

Source: https://github.com/microsoft/onnxscript/pull/1194
"""
import numpy as np
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"depth": {0: "batch"}, "K": {0: "batch"}}
BLIND = "operators-21"


class BackprojectDepth(nn.Module):
    """Layer to transform a depth image into a point cloud"""

    def __init__(self, height, width):
        super().__init__()
        self.height = height
        self.width = width

        meshgrid = np.meshgrid(range(self.width), range(self.height), indexing='xy')
        id_coords = np.stack(meshgrid, axis=0).astype(np.float32)
        self.id_coords = nn.Parameter(torch.from_numpy(id_coords), requires_grad=False)

        pix_coords = torch.unsqueeze(torch.stack(
            [self.id_coords[0].view(-1), self.id_coords[1].view(-1)], 0), 0)
        ones = torch.ones(1, 1, self.height * self.width)
        self.register_buffer("pix_coords", torch.cat([pix_coords, ones], 1))

    def forward(self, depth, K):
        inv_K = torch.inverse(K)
        batch_size = depth.shape[0]
        pix_coords = self.pix_coords.expand(batch_size, -1, -1)
        cam_points = torch.matmul(inv_K[:, :3, :3], pix_coords)
        cam_points = depth.view(batch_size, 1, -1) * cam_points
        ones = torch.ones_like(cam_points[:, :1])
        cam_points = torch.cat([cam_points, ones], 1)
        return cam_points


def _intrinsics(b, h=24, w=32):
    K = torch.eye(4).repeat(b, 1, 1)
    K[:, 0, 0] = 0.58 * w * (1 + 0.1 * torch.rand(b))
    K[:, 1, 1] = 1.92 * h * (1 + 0.1 * torch.rand(b))
    K[:, 0, 2] = 0.5 * w
    K[:, 1, 2] = 0.5 * h
    return K


def make_model():
    return BackprojectDepth(24, 32).eval()


def example_inputs():
    return (torch.rand(2, 1, 24, 32) * 10 + 0.1, _intrinsics(2))


def other_inputs():
    return [(torch.rand(4, 1, 24, 32) * 10 + 0.1, _intrinsics(4)),
            (torch.rand(1, 1, 24, 32) * 10 + 0.1, _intrinsics(1))]


def probe_inputs():
    return other_inputs()

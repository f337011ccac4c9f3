"""kornia's RandomPerspective builds its homography with `get_perspective_transform`, which fills the 8x8 DLT
system row by row and solves it through `_torch_solve_cast` (`torch.linalg.solve` on float64 copies); the
augmentation could not be exported to ONNX because `aten::linalg_solve` (and linalg_inv) have no lowering.

Source: https://github.com/kornia/kornia/pull/3722
"""
import torch
from torch import Tensor, stack, zeros

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"points_src": {0: "batch"}, "points_dst": {0: "batch"}}
BLIND = "operators-16"


def _torch_solve_cast(A: Tensor, B: Tensor) -> Tensor:
    """Helper function to make torch.solve work with other than fp32/64.

    For stable operation, the input matrices should be cast to fp64, and the output will be cast back to the input
    dtype.
    """
    out = torch.linalg.solve(A.to(torch.float64), B.to(torch.float64))
    return out.to(A.dtype)


def get_perspective_transform(points_src: Tensor, points_dst: Tensor) -> Tensor:
    # create the lhs tensor with shape # Bx8x8
    B: int = points_src.shape[0]  # batch_size

    A = torch.empty(B, 8, 8, device=points_src.device, dtype=points_src.dtype)

    # we need to perform in batch
    _zeros = zeros(B, device=points_src.device, dtype=points_src.dtype)
    _ones = torch.ones(B, device=points_src.device, dtype=points_src.dtype)

    for i in range(4):
        x1, y1 = points_src[..., i, 0], points_src[..., i, 1]  # Bx4
        x2, y2 = points_dst[..., i, 0], points_dst[..., i, 1]  # Bx4

        A[:, 2 * i] = stack([x1, y1, _ones, _zeros, _zeros, _zeros, -x1 * x2, -y1 * x2], -1)
        A[:, 2 * i + 1] = stack([_zeros, _zeros, _zeros, x1, y1, _ones, -x1 * y2, -y1 * y2], -1)

    # the rhs tensor
    b = points_dst.view(-1, 8, 1)

    # solve the system Ax = b
    X: Tensor = _torch_solve_cast(A, b)

    # create variable to return the Bx3x3 transform
    M = torch.empty(B, 9, device=points_src.device, dtype=points_src.dtype)
    M[..., :8] = X[..., 0]  # Bx8
    M[..., -1].fill_(1)

    return M.view(-1, 3, 3)  # Bx3x3


class RandomPerspectiveTransform(torch.nn.Module):
    """The transform-matrix part of RandomPerspective, with the sampled corner points passed in."""

    def forward(self, points_src: Tensor, points_dst: Tensor) -> Tensor:
        return get_perspective_transform(points_src, points_dst)


def make_model():
    return RandomPerspectiveTransform().eval()


def _points(batch, size=64.0, distortion=0.3):
    start = torch.tensor([[0.0, 0.0], [size - 1, 0.0], [size - 1, size - 1], [0.0, size - 1]])
    start = start.expand(batch, -1, -1).contiguous()
    offset = (torch.rand(batch, 4, 2) * 2 - 1) * distortion * size / 2
    return (start, start + offset)


def example_inputs():
    return _points(2)


def other_inputs():
    return [_points(5), _points(1)]


def probe_inputs():
    return other_inputs()

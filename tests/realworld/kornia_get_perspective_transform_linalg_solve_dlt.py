"""Homography-regression head built on kornia's get_perspective_transform (before PR #3840): it builds the
8x8 DLT system and calls torch.linalg.solve (in float64), keeping a closed-form Heckbert path only under
torch.jit.is_tracing() because the ONNX exporter cannot lower aten::linalg_solve; the PR removes the solve.

Source: https://github.com/kornia/kornia/pull/3840
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-37"


def _inverse_3x3_closed_form(input):
    a, b, c = input[..., 0, 0], input[..., 0, 1], input[..., 0, 2]
    d, e, f = input[..., 1, 0], input[..., 1, 1], input[..., 1, 2]
    g, h, i = input[..., 2, 0], input[..., 2, 1], input[..., 2, 2]
    c00, c01, c02 = e * i - f * h, -(d * i - f * g), d * h - e * g
    c10, c11, c12 = -(b * i - c * h), a * i - c * g, -(a * h - b * g)
    c20, c21, c22 = b * f - c * e, -(a * f - c * d), a * e - b * d
    det = a * c00 + b * c01 + c * c02
    row0 = torch.stack([c00, c10, c20], dim=-1)
    row1 = torch.stack([c01, c11, c21], dim=-1)
    row2 = torch.stack([c02, c12, c22], dim=-1)
    adj = torch.stack([row0, row1, row2], dim=-2)
    return adj / det[..., None, None]


def _unit_square_to_quad(points):
    x0, y0 = points[..., 0, 0], points[..., 0, 1]
    x1, y1 = points[..., 1, 0], points[..., 1, 1]
    x2, y2 = points[..., 2, 0], points[..., 2, 1]
    x3, y3 = points[..., 3, 0], points[..., 3, 1]
    dx1, dx2, sx = x1 - x2, x3 - x2, x0 - x1 + x2 - x3
    dy1, dy2, sy = y1 - y2, y3 - y2, y0 - y1 + y2 - y3
    denom = dx1 * dy2 - dy1 * dx2
    a31 = (sx * dy2 - sy * dx2) / denom
    a32 = (dx1 * sy - dy1 * sx) / denom
    one = torch.ones_like(x0)
    row0 = torch.stack([x1 - x0 + a31 * x1, x3 - x0 + a32 * x3, x0], dim=-1)
    row1 = torch.stack([y1 - y0 + a31 * y1, y3 - y0 + a32 * y3, y0], dim=-1)
    row2 = torch.stack([a31, a32, one], dim=-1)
    return torch.stack([row0, row1, row2], dim=-2)


def _get_perspective_transform_closed_form(points_src, points_dst):
    h_s = _unit_square_to_quad(points_src)
    h_d = _unit_square_to_quad(points_dst)
    return h_d @ _inverse_3x3_closed_form(h_s)


def _torch_solve_cast(A, B):
    dtype = torch.float64
    out = torch.linalg.solve(A.to(dtype), B.to(dtype))
    return out.to(A.dtype)


def get_perspective_transform(points_src, points_dst):
    if torch.jit.is_tracing():
        return _get_perspective_transform_closed_form(points_src, points_dst)

    B: int = points_src.shape[0]  # batch_size
    A = torch.empty(B, 8, 8, device=points_src.device, dtype=points_src.dtype)
    _zeros = torch.zeros(B, device=points_src.device, dtype=points_src.dtype)
    _ones = torch.ones(B, device=points_src.device, dtype=points_src.dtype)
    for i in range(4):
        x1, y1 = points_src[..., i, 0], points_src[..., i, 1]  # Bx4
        x2, y2 = points_dst[..., i, 0], points_dst[..., i, 1]  # Bx4
        A[:, 2 * i] = torch.stack([x1, y1, _ones, _zeros, _zeros, _zeros, -x1 * x2, -y1 * x2], -1)
        A[:, 2 * i + 1] = torch.stack([_zeros, _zeros, _zeros, x1, y1, _ones, -x1 * y2, -y1 * y2], -1)
    b = points_dst.view(-1, 8, 1)
    X: torch.Tensor = _torch_solve_cast(A, b)
    M = torch.empty(B, 9, device=points_src.device, dtype=points_src.dtype)
    M[..., :8] = X[..., 0]  # Bx8
    M[..., -1].fill_(1)
    return M.view(-1, 3, 3)  # Bx3x3


class HomographyHead(nn.Module):
    """Regresses 4 corner offsets from an image pair and returns the 3x3 homography."""

    def __init__(self, size=32.0):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(2, 8, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.offsets = nn.Linear(8, 8)
        corners = torch.tensor([[0.0, 0.0], [size - 1, 0.0], [size - 1, size - 1], [0.0, size - 1]])
        self.register_buffer("corners", corners)

    def forward(self, x):
        delta = torch.tanh(self.offsets(self.features(x))).view(-1, 4, 2) * 4.0
        points_src = self.corners.expand(x.shape[0], 4, 2)
        points_dst = points_src + delta
        return get_perspective_transform(points_src, points_dst)


def make_model():
    return HomographyHead().eval()


def example_inputs():
    return (torch.randn(2, 2, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 2, 32, 32),), (torch.randn(1, 2, 32, 32),)]


def probe_inputs():
    return other_inputs()

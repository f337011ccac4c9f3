"""kornia's `get_perspective_transform` (4-point homography, e.g. to rectify a detected document/plate quadrilateral
before text recognition) solves the 8x8 DLT system with `torch.linalg.solve`; kornia's ONNX-support issue lists
`torch.linalg.solve` (and `torch.inverse`) as operators torch.onnx cannot export.

Source: https://github.com/kornia/kornia/issues/1153
"""
import torch
from torch import Tensor, nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"image": {0: "batch"}}
BLIND = "operators-3"


# ---- kornia/geometry/transform/imgwarp.py + utils/helpers.py, checks dropped ----
def _torch_solve_cast(A: Tensor, B: Tensor) -> Tensor:
    dtype = A.dtype
    if dtype not in (torch.float32, torch.float64):
        dtype = torch.float32
    out = torch.linalg.solve(A.to(dtype), B.to(dtype))
    return out.to(A.dtype)


def _build_perspective_param(p: Tensor, q: Tensor, axis: str) -> Tensor:
    ones = torch.ones_like(p)[..., 0:1]
    zeros = torch.zeros_like(p)[..., 0:1]
    if axis == 'x':
        return torch.cat([p[:, 0:1], p[:, 1:2], ones, zeros, zeros, zeros,
                          -p[:, 0:1] * q[:, 0:1], -p[:, 1:2] * q[:, 0:1]], dim=1)
    if axis == 'y':
        return torch.cat([zeros, zeros, zeros, p[:, 0:1], p[:, 1:2], ones,
                          -p[:, 0:1] * q[:, 1:2], -p[:, 1:2] * q[:, 1:2]], dim=1)
    raise NotImplementedError(f"perspective params for axis `{axis}` is not implemented.")


def get_perspective_transform(points_src: Tensor, points_dst: Tensor) -> Tensor:
    # we build matrix A by using only 4 point correspondence. The linear
    # system is solved with the least square method, so here
    # we could even pass more correspondence
    p = []
    for i in [0, 1, 2, 3]:
        p.append(_build_perspective_param(points_src[:, i], points_dst[:, i], 'x'))
        p.append(_build_perspective_param(points_src[:, i], points_dst[:, i], 'y'))

    # A is Bx8x8
    A = torch.stack(p, dim=1)

    # b is a Bx8x1
    b = torch.stack([
        points_dst[:, 0:1, 0], points_dst[:, 0:1, 1],
        points_dst[:, 1:2, 0], points_dst[:, 1:2, 1],
        points_dst[:, 2:3, 0], points_dst[:, 2:3, 1],
        points_dst[:, 3:4, 0], points_dst[:, 3:4, 1],
    ], dim=1)

    # solve the system Ax = b
    X = _torch_solve_cast(A, b)

    # create variable to return
    batch_size = points_src.shape[0]
    M = torch.ones(batch_size, 9, device=points_src.device, dtype=points_src.dtype)
    M[..., :8] = torch.squeeze(X, dim=-1)

    return M.view(-1, 3, 3)  # Bx3x3


class QuadRectifier(nn.Module):
    """Regresses the 4 corners of a text region and returns the homography to a 32x128 crop."""

    def __init__(self, in_h=64, in_w=160, out_h=32, out_w=128):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(4), nn.Flatten())
        self.corners = nn.Linear(8 * 16, 8)
        dst = torch.tensor([[0.0, 0.0], [out_w - 1.0, 0.0], [out_w - 1.0, out_h - 1.0], [0.0, out_h - 1.0]])
        self.register_buffer("dst", dst)
        self.register_buffer("base", torch.tensor([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]))
        self.register_buffer("size", torch.tensor([in_w - 1.0, in_h - 1.0]))

    def forward(self, image):
        b = image.shape[0]
        offsets = 0.1 * torch.tanh(self.corners(self.backbone(image))).view(b, 4, 2)
        quad = (self.base + offsets) * self.size
        return get_perspective_transform(quad, self.dst.expand(b, -1, -1))


def make_model():
    return QuadRectifier().eval()


def example_inputs():
    return (torch.rand(2, 3, 64, 160),)


def other_inputs():
    return [(torch.rand(1, 3, 64, 160),), (torch.rand(5, 3, 64, 160),)]


def probe_inputs():
    return other_inputs()

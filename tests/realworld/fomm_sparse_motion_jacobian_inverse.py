"""First Order Motion Model's dense-motion network maps each keypoint's neighbourhood from the driving to the
source frame with the local affine jacobians, `torch.matmul(kp_source['jacobian'], torch.inverse(kp_driving['jacobian']))`;
exporting the generator fails with "Exporting the operator inverse to ONNX opset version 11 is not supported".

Source: https://github.com/pytorch/pytorch/issues/64577
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {
    "source_image": {0: "batch", 2: "height", 3: "width"},
    "driving_value": {0: "batch"},
    "driving_jacobian": {0: "batch"},
    "source_value": {0: "batch"},
    "source_jacobian": {0: "batch"},
}
BLIND = "operators-2"


def make_coordinate_grid(spatial_size, type):
    """
    Create a meshgrid [-1,1] x [-1,1] of given spatial_size.
    """
    h, w = spatial_size
    x = torch.arange(w).type(type)
    y = torch.arange(h).type(type)

    x = (2 * (x / (w - 1)) - 1)
    y = (2 * (y / (h - 1)) - 1)

    yy = y.view(-1, 1).repeat(1, w)
    xx = x.view(1, -1).repeat(h, 1)

    meshed = torch.cat([xx.unsqueeze_(2), yy.unsqueeze_(2)], 2)

    return meshed


class DenseMotionSparse(nn.Module):
    """
    Sparse part of the DenseMotionNetwork: T_{s<-d}(z) for every keypoint
    """

    def __init__(self, num_kp=10):
        super(DenseMotionSparse, self).__init__()
        self.num_kp = num_kp

    def create_sparse_motions(self, source_image, kp_driving, kp_source):
        """
        Eq 4. in the paper T_{s<-d}(z)
        """
        bs, _, h, w = source_image.shape
        identity_grid = make_coordinate_grid((h, w), type=kp_source['value'].type())
        identity_grid = identity_grid.view(1, 1, h, w, 2)
        coordinate_grid = identity_grid - kp_driving['value'].view(bs, self.num_kp, 1, 1, 2)
        if 'jacobian' in kp_driving:
            jacobian = torch.matmul(kp_source['jacobian'], torch.inverse(kp_driving['jacobian']))
            jacobian = jacobian.unsqueeze(-3).unsqueeze(-3)
            jacobian = jacobian.repeat(1, 1, h, w, 1, 1)
            coordinate_grid = torch.matmul(jacobian, coordinate_grid.unsqueeze(-1))
            coordinate_grid = coordinate_grid.squeeze(-1)

        driving_to_source = coordinate_grid + kp_source['value'].view(bs, self.num_kp, 1, 1, 2)

        #adding background feature
        identity_grid = identity_grid.repeat(bs, 1, 1, 1, 1)
        sparse_motions = torch.cat([identity_grid, driving_to_source], dim=1)
        return sparse_motions

    def forward(self, source_image, driving_value, driving_jacobian, source_value, source_jacobian):
        kp_driving = {'value': driving_value, 'jacobian': driving_jacobian}
        kp_source = {'value': source_value, 'jacobian': source_jacobian}
        return self.create_sparse_motions(source_image, kp_driving, kp_source)


def make_model():
    return DenseMotionSparse().eval()


def _inputs(bs, h, w, num_kp=10):
    eye = torch.eye(2).expand(bs, num_kp, 2, 2)
    return (
        torch.rand(bs, 3, h, w),
        torch.rand(bs, num_kp, 2) * 2 - 1,
        eye + 0.1 * torch.randn(bs, num_kp, 2, 2),
        torch.rand(bs, num_kp, 2) * 2 - 1,
        eye + 0.1 * torch.randn(bs, num_kp, 2, 2),
    )


def example_inputs():
    return _inputs(1, 32, 32)


def other_inputs():
    return [_inputs(2, 48, 40), _inputs(3, 24, 36)]


def probe_inputs():
    return other_inputs()

"""EleGANt makeup transfer: the generator aligns the reference features to the source face with a
thin-plate-spline warp whose kernel is inverted in forward (`torch.inverse(forward_kernel)` built from
the 68 landmarks). torch.onnx.export (opset 15) of `solver.G` fails with "Exporting the operator
inverse to ONNX opset version 15 is not supported".

Source: https://github.com/Chenyu-Yang-2000/EleGANt/issues/14
"""
import itertools

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {}   # the report exports fixed 1x3x256x256 inputs, no dynamic_axes
BLIND = "operators-32"


# phi(x1, x2) = r^2 * log(r), where r = ||x1 - x2||_2
def compute_partial_repr(input_points, control_points):
    N = input_points.size(0)
    M = control_points.size(0)
    pairwise_diff = input_points.view(N, 1, 2) - control_points.view(1, M, 2)
    pairwise_diff_square = pairwise_diff * pairwise_diff
    pairwise_dist = pairwise_diff_square[:, :, 0] + pairwise_diff_square[:, :, 1]
    repr_matrix = 0.5 * pairwise_dist * torch.log(pairwise_dist)
    mask = repr_matrix != repr_matrix
    repr_matrix.masked_fill_(mask, 0)
    return repr_matrix


def bulid_delta_inverse(target_control_points):
    N = target_control_points.shape[0]
    forward_kernel = torch.zeros(N + 3, N + 3).to(target_control_points.device)
    target_control_partial_repr = compute_partial_repr(target_control_points, target_control_points)
    forward_kernel[:N, :N].copy_(target_control_partial_repr)
    forward_kernel[:N, -3].fill_(1)
    forward_kernel[-3, :N].fill_(1)
    forward_kernel[:N, -2:].copy_(target_control_points)
    forward_kernel[-2:, :N].copy_(target_control_points.transpose(0, 1))
    # compute inverse matrix
    inverse_kernel = torch.inverse(forward_kernel)
    return inverse_kernel


def build_target_coordinate_matrix(target_height, target_width, target_control_points):
    HW = target_height * target_width
    target_coordinate = list(itertools.product(range(target_height), range(target_width)))
    target_coordinate = torch.Tensor(target_coordinate).to(target_control_points.device)  # HW x 2
    Y, X = target_coordinate.split(1, dim=1)
    Y = Y / (target_height - 1)
    X = X / (target_width - 1)
    target_coordinate = torch.cat([X, Y], dim=1)
    target_coordinate_partial_repr = compute_partial_repr(target_coordinate, target_control_points)
    target_coordinate_repr = torch.cat([
        target_coordinate_partial_repr,
        torch.ones((HW, 1), device=target_control_points.device),
        target_coordinate], dim=1)
    return target_coordinate_repr


def tps_sampler(target_height, target_width, inverse_kernel, target_coordinate_repr,
                source, source_control_points, sample_mode='bilinear'):
    batch_size = source.shape[0]
    Y = torch.cat([source_control_points, torch.zeros((batch_size, 3, 2), device=source.device)], dim=1)
    mapping_matrix = torch.matmul(inverse_kernel, Y)
    source_coordinate = torch.matmul(target_coordinate_repr, mapping_matrix)
    grid = source_coordinate.view(-1, target_height, target_width, 2)
    grid = torch.clamp(grid, 0, 1)
    grid = 2.0 * grid - 1.0
    output_maps = F.grid_sample(source, grid, mode=sample_mode, align_corners=True)
    return output_maps, source_coordinate


def tps_spatial_transform(target_height, target_width, target_control_points,
                          source, source_control_points, sample_mode='bilinear'):
    inverse_kernel = bulid_delta_inverse(target_control_points)
    target_coordinate_repr = build_target_coordinate_matrix(target_height, target_width, target_control_points)
    return tps_sampler(target_height, target_width, inverse_kernel, target_coordinate_repr,
                       source, source_control_points, sample_mode)


class EleGANtAlign(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU())

    def forward(self, s, lms_c, lms_s):
        fea_s = self.down(s)
        feature_size = fea_s.shape[2]
        scale_factor = 0.5
        return self.tps_align(feature_size, lms_s * scale_factor, lms_c * scale_factor, fea_s)

    def tps_align(self, feature_size, lms_s, lms_c, fea_s, sample_mode='bilinear'):
        fea_out = []
        for l_s, l_c, f_s in zip(lms_s, lms_c, fea_s):
            l_c = torch.flip(l_c, dims=[1]) / (feature_size - 1)
            l_s = (torch.flip(l_s, dims=[1]) / (feature_size - 1)).unsqueeze(0)
            f_s = f_s.unsqueeze(0)  # (1, C, H, W)
            fea_trans, _ = tps_spatial_transform(feature_size, feature_size, l_c, f_s, l_s, sample_mode)
            fea_out.append(fea_trans)
        return torch.cat(fea_out, dim=0)


def _lms(n=1):
    return torch.rand(n, 68, 2) * 31


def make_model():
    return EleGANtAlign().eval()


def example_inputs():
    return (torch.randn(1, 3, 32, 32), _lms(), _lms())


def other_inputs():
    return [(torch.randn(1, 3, 32, 32), _lms(), _lms()), (torch.randn(1, 3, 32, 32), _lms(), _lms())]


def probe_inputs():
    return other_inputs()

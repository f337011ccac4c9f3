"""Thin-Plate Spline Motion Model (portrait animation): the dense motion network solves the TPS
parameters of every keypoint group with `param = torch.matmul(torch.inverse(L), Y)` inside forward and
then warps a coordinate grid and grid_samples the source. DeepFaceLive's ONNX port had to move this
solve out of the graph (it recomputes it in NumPy with `np.linalg.inv(L)` and feeds theta /
control_params as extra inputs), because the inverse does not export (iperov: "it took a lot of work
to export to onnx, because forward pytorch code is not graph-friendly", TPSMM issue #9).

Source: https://github.com/iperov/DeepFaceLive/blob/ae8a1e0ff4b13e6e6a0155e346864805b2ca81dd/modelhub/onnx/TPSMM/TPSMM.py
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"source_image": {0: "batch"}, "kp_driving": {0: "batch"}, "kp_source": {0: "batch"}}
BLIND = "operators-68"


def make_coordinate_grid(spatial_size, type):
    h, w = spatial_size
    x = torch.arange(w).type(type)
    y = torch.arange(h).type(type)
    x = (2 * (x / (w - 1)) - 1)
    y = (2 * (y / (h - 1)) - 1)
    yy = y.view(-1, 1).repeat(1, w)
    xx = x.view(1, -1).repeat(h, 1)
    meshed = torch.cat([xx.unsqueeze_(2), yy.unsqueeze_(2)], 2)
    return meshed


class TPS:
    def __init__(self, mode, bs, **kwargs):
        self.bs = bs
        self.mode = mode
        kp_1 = kwargs["kp_1"]
        kp_2 = kwargs["kp_2"]
        device = kp_1.device
        kp_type = kp_1.type()
        self.gs = kp_1.shape[1]
        n = kp_1.shape[2]
        K = torch.norm(kp_1[:, :, :, None] - kp_1[:, :, None, :], dim=4, p=2)
        K = K ** 2
        K = K * torch.log(K + 1e-9)

        one1 = torch.ones(self.bs, kp_1.shape[1], kp_1.shape[2], 1).to(device).type(kp_type)
        kp_1p = torch.cat([kp_1, one1], 3)

        zero = torch.zeros(self.bs, kp_1.shape[1], 3, 3).to(device).type(kp_type)
        P = torch.cat([kp_1p, zero], 2)
        L = torch.cat([K, kp_1p.permute(0, 1, 3, 2)], 2)
        L = torch.cat([L, P], 3)

        zero = torch.zeros(self.bs, kp_1.shape[1], 3, 2).to(device).type(kp_type)
        Y = torch.cat([kp_2, zero], 2)
        one = torch.eye(L.shape[2]).expand(L.shape).to(device).type(kp_type) * 0.01
        L = L + one

        param = torch.matmul(torch.inverse(L), Y)
        self.theta = param[:, :, n:, :].permute(0, 1, 3, 2)
        self.control_points = kp_1
        self.control_params = param[:, :, :n, :]

    def transform_frame(self, frame):
        grid = make_coordinate_grid(frame.shape[2:], type=frame.type()).unsqueeze(0).to(frame.device)
        grid = grid.view(1, frame.shape[2] * frame.shape[3], 2)
        shape = [self.bs, frame.shape[2], frame.shape[3], 2]
        shape.insert(1, self.gs)
        grid = self.warp_coordinates(grid).view(*shape)
        return grid

    def warp_coordinates(self, coordinates):
        theta = self.theta.type(coordinates.type()).to(coordinates.device)
        control_points = self.control_points.type(coordinates.type()).to(coordinates.device)
        control_params = self.control_params.type(coordinates.type()).to(coordinates.device)
        transformed = torch.matmul(theta[:, :, :, :2], coordinates.permute(0, 2, 1)) + theta[:, :, :, 2:]
        distances = coordinates.view(coordinates.shape[0], 1, 1, -1, 2) - control_points.view(self.bs, control_points.shape[1], -1, 1, 2)
        distances = distances ** 2
        result = distances.sum(-1)
        result = result * torch.log(result + 1e-9)
        result = torch.matmul(result.permute(0, 1, 3, 2), control_params)
        transformed = transformed.permute(0, 1, 3, 2) + result
        return transformed


class DenseMotionTPS(nn.Module):
    def __init__(self, num_tps=10):
        super().__init__()
        self.num_tps = num_tps

    def forward(self, source_image, kp_driving, kp_source):
        bs, _, h, w = source_image.shape
        kp_1 = kp_driving.view(bs, -1, 5, 2)
        kp_2 = kp_source.view(bs, -1, 5, 2)
        trans = TPS(mode='kp', bs=bs, kp_1=kp_1, kp_2=kp_2)
        driving_to_source = trans.transform_frame(source_image)

        identity_grid = make_coordinate_grid((h, w), type=kp_1.type()).to(kp_1.device)
        identity_grid = identity_grid.view(1, 1, h, w, 2)
        identity_grid = identity_grid.repeat(bs, 1, 1, 1, 1)
        transformations = torch.cat([identity_grid, driving_to_source], dim=1)

        source_repeat = source_image.unsqueeze(1).unsqueeze(1).repeat(1, self.num_tps + 1, 1, 1, 1, 1)
        source_repeat = source_repeat.view(bs * (self.num_tps + 1), -1, h, w)
        transformations = transformations.view((bs * (self.num_tps + 1), h, w, -1))
        deformed = F.grid_sample(source_repeat, transformations, align_corners=True)
        deformed = deformed.view((bs, self.num_tps + 1, -1, h, w))
        return deformed


def make_model():
    return DenseMotionTPS()


def example_inputs():
    return (torch.randn(2, 3, 32, 32), torch.rand(2, 50, 2) * 2 - 1, torch.rand(2, 50, 2) * 2 - 1)


def other_inputs():
    return [(torch.randn(3, 3, 32, 32), torch.rand(3, 50, 2) * 2 - 1, torch.rand(3, 50, 2) * 2 - 1),
            (torch.randn(1, 3, 32, 32), torch.rand(1, 50, 2) * 2 - 1, torch.rand(1, 50, 2) * 2 - 1)]


def probe_inputs():
    return other_inputs()

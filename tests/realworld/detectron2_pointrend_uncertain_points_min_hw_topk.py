"""detectron2 PointRend: at inference each subdivision step picks points with
`num_points = min(H * W, num_points)` on the upsampled uncertainty map (point_features.py
`get_uncertain_point_coords_on_grid`), then topk / zeros / scatter_ with that count; exporting the
PointRend model to ONNX fails inside that function (point_features.py:138, "Unexpected node type: onnx::Mul").

Source: https://github.com/facebookresearch/detectron2/issues/2086
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-31"


def cat(tensors, dim=0):
    if len(tensors) == 1:
        return tensors[0]
    return torch.cat(tensors, dim)


def point_sample(input, point_coords, **kwargs):
    add_dim = False
    if point_coords.dim() == 3:
        add_dim = True
        point_coords = point_coords.unsqueeze(2)
    output = F.grid_sample(input, 2.0 * point_coords - 1.0, **kwargs)
    if add_dim:
        output = output.squeeze(3)
    return output


def calculate_uncertainty(sem_seg_logits):
    top2_scores = torch.topk(sem_seg_logits, k=2, dim=1)[0]
    return (top2_scores[:, 1] - top2_scores[:, 0]).unsqueeze(1)


def get_uncertain_point_coords_on_grid(uncertainty_map, num_points):
    R, _, H, W = uncertainty_map.shape
    h_step = 1.0 / float(H)
    w_step = 1.0 / float(W)

    num_points = min(H * W, num_points)
    point_indices = torch.topk(uncertainty_map.view(R, H * W), k=num_points, dim=1)[1]
    point_coords = torch.zeros(R, num_points, 2, dtype=torch.float, device=uncertainty_map.device)
    point_coords[:, :, 0] = w_step / 2.0 + (point_indices % W).to(torch.float) * w_step
    point_coords[:, :, 1] = h_step / 2.0 + (point_indices // W).to(torch.float) * h_step
    return point_indices, point_coords


class StandardPointHead(nn.Module):
    def __init__(self, in_channels, num_classes, fc_dim=32):
        super().__init__()
        self.fc1 = nn.Conv1d(in_channels + num_classes, fc_dim, 1)
        self.predictor = nn.Conv1d(fc_dim + num_classes, num_classes, 1)

    def forward(self, fine_grained_features, coarse_features):
        x = F.relu(self.fc1(torch.cat((fine_grained_features, coarse_features), dim=1)))
        return self.predictor(cat((x, coarse_features), dim=1))


class PointRendSemSeg(nn.Module):
    def __init__(self, num_classes=5, channels=16, subdivision_steps=2, subdivision_num_points=8192):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, channels, 3, 2, 1), nn.ReLU(), nn.Conv2d(channels, channels, 3, 2, 1), nn.ReLU())
        self.coarse_sem_seg_head = nn.Conv2d(channels, num_classes, 1)
        self.in_features = ["p2"]
        self.subdivision_steps = subdivision_steps
        self.subdivision_num_points = subdivision_num_points
        self.point_head = StandardPointHead(channels, num_classes)

    def forward(self, images):
        features = {"p2": self.backbone(images)}
        coarse_sem_seg_logits = self.coarse_sem_seg_head(features["p2"])
        sem_seg_logits = coarse_sem_seg_logits.clone()
        for _ in range(self.subdivision_steps):
            sem_seg_logits = F.interpolate(sem_seg_logits, scale_factor=2, mode="bilinear", align_corners=False)
            uncertainty_map = calculate_uncertainty(sem_seg_logits)
            point_indices, point_coords = get_uncertain_point_coords_on_grid(uncertainty_map, self.subdivision_num_points)
            fine_grained_features = cat([point_sample(features[f], point_coords, align_corners=False) for f in self.in_features])
            coarse_features = point_sample(coarse_sem_seg_logits, point_coords, align_corners=False)
            point_logits = self.point_head(fine_grained_features, coarse_features)

            N, C, H, W = sem_seg_logits.shape
            point_indices = point_indices.unsqueeze(1).expand(-1, C, -1)
            sem_seg_logits = (
                sem_seg_logits.reshape(N, C, H * W)
                .scatter_(2, point_indices, point_logits)
                .view(N, C, H, W)
            )
        return sem_seg_logits


def make_model():
    return PointRendSemSeg().eval()


def example_inputs():
    return (torch.randn(2, 3, 128, 128),)


def other_inputs():
    return [(torch.randn(1, 3, 64, 96),), (torch.randn(3, 3, 160, 192),)]


def probe_inputs():
    return other_inputs()

"""MMRotate's `poly2obb_le135` (quadrilaterals -> rotated boxes, le135 angle convention) picks each box's
angle with boolean-mask assignments `angles[edge1 > edge2] = angles1[edge1 > edge2]`; mmdeploy had to add a
rewriter for the default backend "to remove NonZero ops" (torch.where instead) to export le135 models.

Source: https://github.com/open-mmlab/mmdeploy/pull/788
"""
import numpy as np
import torch
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"roi_feats": {0: "num_rois"}, "proposals": {0: "num_rois"}}
BLIND = "domains-45"


def norm_angle(angle, angle_range):
    """Limit the range of angles."""
    if angle_range == 'oc':
        return angle
    elif angle_range == 'le135':
        return (angle + np.pi / 4) % np.pi - np.pi / 4
    elif angle_range == 'le90':
        return (angle + np.pi / 2) % np.pi - np.pi / 2
    else:
        print('Not yet implemented.')


def poly2obb_le135(polys):
    """Convert polygons to oriented bounding boxes.

    Args:
        polys (torch.Tensor): [x0,y0,x1,y1,x2,y2,x3,y3]

    Returns:
        obbs (torch.Tensor): [x_ctr,y_ctr,w,h,angle]
    """
    polys = torch.reshape(polys, [-1, 8])
    pt1, pt2, pt3, pt4 = polys[..., :8].chunk(4, 1)
    edge1 = torch.sqrt(
        torch.pow(pt1[..., 0] - pt2[..., 0], 2) +
        torch.pow(pt1[..., 1] - pt2[..., 1], 2))
    edge2 = torch.sqrt(
        torch.pow(pt2[..., 0] - pt3[..., 0], 2) +
        torch.pow(pt2[..., 1] - pt3[..., 1], 2))
    angles1 = torch.atan2((pt2[..., 1] - pt1[..., 1]),
                          (pt2[..., 0] - pt1[..., 0]))
    angles2 = torch.atan2((pt4[..., 1] - pt1[..., 1]),
                          (pt4[..., 0] - pt1[..., 0]))
    angles = polys.new_zeros(polys.shape[0])
    angles[edge1 > edge2] = angles1[edge1 > edge2]
    angles[edge1 <= edge2] = angles2[edge1 <= edge2]
    angles = norm_angle(angles, 'le135')
    x_ctr = (pt1[..., 0] + pt3[..., 0]) / 2.0
    y_ctr = (pt1[..., 1] + pt3[..., 1]) / 2.0
    edges = torch.stack([edge1, edge2], dim=1)
    width, _ = torch.max(edges, 1)
    height, _ = torch.min(edges, 1)
    return torch.stack([x_ctr, y_ctr, width, height, angles], 1)


def poly2obb(polys, version='oc'):
    """Convert polygons to oriented bounding boxes."""
    if version == 'le135':
        results = poly2obb_le135(polys)
    else:
        raise NotImplementedError
    return results


class QuadRefineHead(nn.Module):
    """RoI head that refines quadrilateral proposals and returns rotated boxes (le135)."""

    def __init__(self, in_channels=64, version='le135'):
        super().__init__()
        self.version = version
        self.shared_fc = nn.Linear(in_channels, in_channels)
        self.fc_poly = nn.Linear(in_channels, 8)

    def forward(self, roi_feats, proposals):
        x = torch.relu(self.shared_fc(roi_feats))
        poly_deltas = self.fc_poly(x)
        polys = proposals + poly_deltas
        return poly2obb(polys, self.version)


def make_model():
    return QuadRefineHead().eval()


def _quads(n):
    ctr = torch.rand(n, 1, 2) * 400 + 50
    wh = torch.rand(n, 1, 2) * 60 + 10
    corners = torch.tensor([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    return (ctr + corners * wh).reshape(n, 8)


def example_inputs():
    return (torch.randn(6, 64), _quads(6))


def other_inputs():
    return [(torch.randn(11, 64), _quads(11)), (torch.randn(3, 64), _quads(3))]


def probe_inputs():
    return other_inputs()

"""ONX601 on detectron2's `_do_paste_mask` (copied by mmdet and others): a box of zero width
makes the normalised grid coordinates infinite, and `if torch.isinf(img_x).any(): inds =
torch.where(torch.isinf(img_x)); img_x[inds] = 0` zeroes them through the indices of the tested
mask. The dynamo exporter fails on the branch and the legacy one freezes it (an example without
such a box drops the write). The write selects nothing where the test is false, so the `if` is
dropped and the write always runs (unsafe only for autograd: an in-place write of no element)."""
import torch
import torch.nn.functional as F
from torch import nn


class PasteMasks(nn.Module):
    def forward(self, masks: torch.Tensor, boxes: torch.Tensor):
        x0, y0, x1, y1 = torch.split(boxes, 1, dim=1)
        n = masks.shape[0]
        img_y = torch.arange(0, 12, device=boxes.device).to(torch.float32) + 0.5
        img_x = torch.arange(0, 16, device=boxes.device).to(torch.float32) + 0.5
        img_y = (img_y - y0) / (y1 - y0) * 2 - 1
        img_x = (img_x - x0) / (x1 - x0) * 2 - 1
        if torch.isinf(img_x).any():
            inds = torch.where(torch.isinf(img_x))
            img_x[inds] = 0
        if torch.isinf(img_y).any():
            inds = torch.where(torch.isinf(img_y))
            img_y[inds] = 0
        gx = img_x[:, None, :].expand(n, img_y.size(1), img_x.size(1))
        gy = img_y[:, :, None].expand(n, img_y.size(1), img_x.size(1))
        grid = torch.stack([gx, gy], dim=3)
        return F.grid_sample(masks, grid, align_corners=False)[:, 0]


def make_model():
    return PasteMasks()


def example_inputs():
    torch.manual_seed(0)
    return (torch.rand(3, 1, 7, 7), torch.tensor([[1.0, 2.0, 9.0, 8.0], [0.0, 0.0, 15.0, 11.0], [4.0, 3.0, 6.0, 10.0]]))


def probe_inputs():
    torch.manual_seed(1)
    return [
        (torch.rand(2, 1, 7, 7), torch.tensor([[3.0, 2.0, 3.0, 8.0], [1.0, 5.0, 12.0, 5.0]])),  # zero width, zero height
        (torch.rand(4, 1, 7, 7), torch.tensor([[2.0, 2.0, 2.0, 2.0], [0.0, 0.0, 15.0, 11.0],
                                               [5.0, 1.0, 9.0, 7.0], [6.0, 6.0, 6.0, 9.0]])),
    ]


DYNAMIC = {0: {0: "boxes"}, 1: {0: "boxes"}}

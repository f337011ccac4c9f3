"""DiMP/ATOM tracker (pytracking) box refinement: `optimize_boxes_default` runs `box_refinement_iter` steps of
gradient ascent on the IoU predicted by the IoUNet head: it sets `bb_init.requires_grad = True`, calls
`outputs.backward(gradient=torch.ones_like(outputs))` and moves the boxes along `bb_init.grad`. The maintainer's
answer to "any possible convert to onnx model?" names this automatic differentiation (and PrRoIPool) as what keeps
DiMP from ONNX. The tracker calls it outside its `torch.no_grad()` blocks, so the export wrapper runs it under
`torch.enable_grad()`. (PrRoIPool2D is replaced by a grid_sample stand-in, differentiable in the boxes like the
original; feature sizes reduced.)

Source: https://github.com/visionml/pytracking/issues/333
"""
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "autograd-function"
FAMILY = "operators"
DYNAMIC = {"init_boxes": {0: "num_boxes"}}
BLIND = "domains-43"


class PrRoIPool2D(nn.Module):
    """Stand-in for the PrRoIPool CUDA extension: samples every bin centre bilinearly (differentiable in the rois)."""

    def __init__(self, pooled_height, pooled_width, spatial_scale):
        super().__init__()
        self.pooled_height = pooled_height
        self.pooled_width = pooled_width
        self.spatial_scale = spatial_scale

    def forward(self, features, rois):
        H, W = features.shape[-2:]
        x0, y0, x1, y1 = (rois[:, 1:] * self.spatial_scale).unbind(1)
        ty = (torch.arange(self.pooled_height, dtype=features.dtype) + 0.5) / self.pooled_height
        tx = (torch.arange(self.pooled_width, dtype=features.dtype) + 0.5) / self.pooled_width
        gy = y0[:, None] + (y1 - y0)[:, None] * ty[None]
        gx = x0[:, None] + (x1 - x0)[:, None] * tx[None]
        gy = (2 * gy / (H - 1) - 1)[:, :, None].expand(-1, -1, self.pooled_width)
        gx = (2 * gx / (W - 1) - 1)[:, None, :].expand(-1, self.pooled_height, -1)
        grid = torch.stack([gx, gy], dim=-1)
        feats = features[rois[:, 0].long()]
        return F.grid_sample(feats, grid, align_corners=True)


class LinearBlock(nn.Module):
    def __init__(self, in_planes, out_planes, input_sz, bias=True, batch_norm=True, relu=True):
        super().__init__()
        self.linear = nn.Linear(in_planes*input_sz*input_sz, out_planes, bias=bias)
        self.bn = nn.BatchNorm2d(out_planes) if batch_norm else None
        self.relu = nn.ReLU(inplace=True) if relu else None

    def forward(self, x):
        x = self.linear(x.reshape(x.shape[0], -1))
        if self.bn is not None:
            x = self.bn(x.reshape(x.shape[0], x.shape[1], 1, 1))
        if self.relu is not None:
            x = self.relu(x)
        return x.reshape(x.shape[0], -1)


class AtomIoUNet(nn.Module):
    """The test branch of ATOM's IoUNet (the reference branch ran at initialization and gave the modulation)."""

    def __init__(self, pred_input_dim=(32, 32), pred_inter_dim=(32, 32)):
        super().__init__()
        self.prroi_pool3t = PrRoIPool2D(5, 5, 1/8)
        self.prroi_pool4t = PrRoIPool2D(3, 3, 1 / 16)
        self.fc3_rt = LinearBlock(pred_input_dim[0], pred_inter_dim[0], 5)
        self.fc4_rt = LinearBlock(pred_input_dim[1], pred_inter_dim[1], 3)
        self.iou_predictor = nn.Linear(pred_inter_dim[0]+pred_inter_dim[1], 1, bias=True)

    def predict_iou(self, modulation, feat, proposals):
        fc34_3_r, fc34_4_r = modulation
        c3_t, c4_t = feat

        batch_size = c3_t.size()[0]

        # Modulation
        c3_t_att = c3_t * fc34_3_r.reshape(batch_size, -1, 1, 1)
        c4_t_att = c4_t * fc34_4_r.reshape(batch_size, -1, 1, 1)

        # Add batch_index to rois
        batch_index = torch.arange(batch_size, dtype=torch.float32).reshape(-1, 1).to(c3_t.device)

        # Push the different rois for the same image along the batch dimension
        num_proposals_per_batch = proposals.shape[1]

        # input proposals2 is in format xywh, convert it to x0y0x1y1 format
        proposals_xyxy = torch.cat((proposals[:, :, 0:2], proposals[:, :, 0:2] + proposals[:, :, 2:4]), dim=2)

        # Add batch index
        roi2 = torch.cat((batch_index.reshape(batch_size, -1, 1).expand(-1, num_proposals_per_batch, -1),
                          proposals_xyxy), dim=2)
        roi2 = roi2.reshape(-1, 5).to(proposals_xyxy.device)

        roi3t = self.prroi_pool3t(c3_t_att, roi2)
        roi4t = self.prroi_pool4t(c4_t_att, roi2)

        fc3_rt = self.fc3_rt(roi3t)
        fc4_rt = self.fc4_rt(roi4t)

        fc34_rt_cat = torch.cat((fc3_rt, fc4_rt), dim=1)

        iou_pred = self.iou_predictor(fc34_rt_cat).reshape(batch_size, num_proposals_per_batch)

        return iou_pred


class DiMPBoxRefinement(nn.Module):
    """Export wrapper around DiMP.optimize_boxes_default (tracker state: params, net, iou_modulation)."""

    def __init__(self):
        super().__init__()
        self.net = nn.Module()
        self.net.bb_regressor = AtomIoUNet()
        self.params = SimpleNamespace(device='cpu', box_refinement_iter=5, box_refinement_step_length=1,
                                      box_refinement_step_decay=1)
        # computed once from the first frame by get_iou_modulation()
        self.iou_modulation = (torch.rand(1, 32) + 0.5, torch.rand(1, 32) + 0.5)

    def optimize_boxes_default(self, iou_features, init_boxes):
        """Optimize iounet boxes with the default parametrization"""
        output_boxes = init_boxes.view(1, -1, 4).to(self.params.device)
        step_length = self.params.box_refinement_step_length
        if isinstance(step_length, (tuple, list)):
            step_length = torch.Tensor([step_length[0], step_length[0], step_length[1], step_length[1]], device=self.params.device).view(1,1,4)

        for i_ in range(self.params.box_refinement_iter):
            # forward pass
            bb_init = output_boxes.clone().detach()
            bb_init.requires_grad = True

            outputs = self.net.bb_regressor.predict_iou(self.iou_modulation, iou_features, bb_init)

            if isinstance(outputs, (list, tuple)):
                outputs = outputs[0]

            outputs.backward(gradient = torch.ones_like(outputs))

            # Update proposal
            output_boxes = bb_init + step_length * bb_init.grad * bb_init[:, :, 2:].repeat(1, 1, 2)
            output_boxes.detach_()

            step_length *= self.params.box_refinement_step_decay

        return output_boxes.view(-1,4).cpu(), outputs.detach().view(-1).cpu()

    def forward(self, iou_feat3, iou_feat4, init_boxes):
        with torch.enable_grad():
            return self.optimize_boxes_default([iou_feat3, iou_feat4], init_boxes)


def make_model():
    return DiMPBoxRefinement().eval()


def _boxes(n):
    xy = torch.rand(n, 2) * 80 + 40
    wh = torch.rand(n, 2) * 60 + 40
    return torch.cat([xy, wh], dim=1)


def example_inputs():
    return (torch.randn(1, 32, 36, 36), torch.randn(1, 32, 18, 18), _boxes(10))


def other_inputs():
    return [(torch.randn(1, 32, 36, 36), torch.randn(1, 32, 18, 18), _boxes(6)),
            (torch.randn(1, 32, 36, 36), torch.randn(1, 32, 18, 18), _boxes(13))]


def probe_inputs():
    return other_inputs()

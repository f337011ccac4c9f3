"""torchvision Faster R-CNN exported with dynamo=False and dynamic batch/height/width: inference with a
different batch size fails in onnxruntime with "Non-zero status code returned while running Split node ...
Cannot split using values in 'split' attribute. Axis=0". RoIHeads.postprocess_detections splits the
decoded boxes per image with `boxes_per_image = [boxes_in_image.shape[0] for boxes_in_image in proposals]`
and loops over images (torchvision code trimmed: one feature level, RoIAlign replaced by a box MLP, no NMS).

Source: https://github.com/pytorch/vision/issues/8937
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"images": {0: "batch_size", 2: "height", 3: "width"}}
BLIND = "domains-6"


def clip_boxes_to_image(boxes, size):
    dim = boxes.dim()
    boxes_x = boxes[..., 0::2]
    boxes_y = boxes[..., 1::2]
    height, width = size
    boxes_x = boxes_x.clamp(min=0, max=width)
    boxes_y = boxes_y.clamp(min=0, max=height)
    clipped_boxes = torch.stack((boxes_x, boxes_y), dim=dim)
    return clipped_boxes.reshape(boxes.shape)


class BoxCoder:
    def __init__(self, weights, bbox_xform_clip=math.log(1000.0 / 16)):
        self.weights = weights
        self.bbox_xform_clip = bbox_xform_clip

    def decode(self, rel_codes, boxes):
        boxes_per_image = [b.size(0) for b in boxes]
        concat_boxes = torch.cat(boxes, dim=0)
        box_sum = 0
        for val in boxes_per_image:
            box_sum += val
        if box_sum > 0:
            rel_codes = rel_codes.reshape(box_sum, -1)
        pred_boxes = self.decode_single(rel_codes, concat_boxes)
        if box_sum > 0:
            pred_boxes = pred_boxes.reshape(box_sum, -1, 4)
        return pred_boxes

    def decode_single(self, rel_codes, boxes):
        widths = boxes[:, 2] - boxes[:, 0]
        heights = boxes[:, 3] - boxes[:, 1]
        ctr_x = boxes[:, 0] + 0.5 * widths
        ctr_y = boxes[:, 1] + 0.5 * heights
        wx, wy, ww, wh = self.weights
        dx = rel_codes[:, 0::4] / wx
        dy = rel_codes[:, 1::4] / wy
        dw = torch.clamp(rel_codes[:, 2::4] / ww, max=self.bbox_xform_clip)
        dh = torch.clamp(rel_codes[:, 3::4] / wh, max=self.bbox_xform_clip)
        pred_ctr_x = dx * widths[:, None] + ctr_x[:, None]
        pred_ctr_y = dy * heights[:, None] + ctr_y[:, None]
        pred_w = torch.exp(dw) * widths[:, None]
        pred_h = torch.exp(dh) * heights[:, None]
        x1 = pred_ctr_x - 0.5 * pred_w
        y1 = pred_ctr_y - 0.5 * pred_h
        x2 = pred_ctr_x + 0.5 * pred_w
        y2 = pred_ctr_y + 0.5 * pred_h
        return torch.stack((x1, y1, x2, y2), dim=2).flatten(1)


class FasterRCNN(nn.Module):
    def __init__(self, num_classes=4, pre_nms_top_n=20, anchor_size=32.0):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 16, 3, 2, 1), nn.ReLU())
        self.rpn_cls = nn.Conv2d(16, 1, 1)
        self.rpn_bbox = nn.Conv2d(16, 4, 1)
        self.box_head = nn.Sequential(nn.Linear(4, 32), nn.ReLU())  # stand-in for MultiScaleRoIAlign + TwoMLPHead
        self.cls_score = nn.Linear(32, num_classes)
        self.bbox_pred = nn.Linear(32, num_classes * 4)
        self.rpn_box_coder = BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
        self.box_coder = BoxCoder(weights=(10.0, 10.0, 5.0, 5.0))
        self.pre_nms_top_n = pre_nms_top_n
        self.anchor_size = anchor_size

    def anchors(self, images, feature):
        grid_height, grid_width = feature.shape[-2:]
        stride_height = images.shape[-2] // grid_height
        stride_width = images.shape[-1] // grid_width
        shifts_x = torch.arange(0, grid_width, dtype=torch.float32) * stride_width
        shifts_y = torch.arange(0, grid_height, dtype=torch.float32) * stride_height
        shift_y, shift_x = torch.meshgrid(shifts_y, shifts_x, indexing="ij")
        shift_x, shift_y = shift_x.reshape(-1), shift_y.reshape(-1)
        shifts = torch.stack((shift_x, shift_y, shift_x, shift_y), dim=1)
        half = self.anchor_size / 2
        return shifts + torch.tensor([-half, -half, half, half])

    def filter_proposals(self, proposals, objectness, image_shapes):
        num_images = proposals.shape[0]
        objectness = objectness.detach().reshape(num_images, -1)
        top_n_idx = objectness.topk(self.pre_nms_top_n, dim=1)[1]
        batch_idx = torch.arange(num_images)[:, None]
        proposals = proposals[batch_idx, top_n_idx]
        final_boxes = []
        for boxes, img_shape in zip(proposals, image_shapes):
            boxes = clip_boxes_to_image(boxes, img_shape)
            final_boxes.append(boxes)
        return final_boxes

    def postprocess_detections(self, class_logits, box_regression, proposals, image_shapes):
        num_classes = class_logits.shape[-1]
        boxes_per_image = [boxes_in_image.shape[0] for boxes_in_image in proposals]
        pred_boxes = self.box_coder.decode(box_regression, proposals)
        pred_scores = F.softmax(class_logits, -1)
        pred_boxes_list = pred_boxes.split(boxes_per_image, 0)
        pred_scores_list = pred_scores.split(boxes_per_image, 0)
        all_boxes = []
        all_scores = []
        for boxes, scores, image_shape in zip(pred_boxes_list, pred_scores_list, image_shapes):
            boxes = clip_boxes_to_image(boxes, image_shape)
            # remove predictions with the background label
            boxes = boxes[:, 1:]
            scores = scores[:, 1:]
            all_boxes.append(boxes.reshape(-1, 4))
            all_scores.append(scores.reshape(-1))
        return torch.stack(all_boxes), torch.stack(all_scores)

    def forward(self, images):
        image_sizes = [img.shape[-2:] for img in images]
        features = self.backbone(images)
        num_images = images.shape[0]
        objectness = self.rpn_cls(features).flatten(1)
        pred_bbox_deltas = self.rpn_bbox(features).permute(0, 2, 3, 1).reshape(-1, 4)
        anchors = [self.anchors(images, features) for _ in range(num_images)]
        proposals = self.rpn_box_coder.decode(pred_bbox_deltas.detach(), anchors)
        proposals = proposals.view(num_images, -1, 4)
        proposals = self.filter_proposals(proposals, objectness, image_sizes)
        box_features = self.box_head(torch.cat(proposals) / 100.0)
        class_logits, box_regression = self.cls_score(box_features), self.bbox_pred(box_features)
        return self.postprocess_detections(class_logits, box_regression, proposals, image_sizes)


def make_model():
    return FasterRCNN().eval()


def example_inputs():
    return (torch.rand(2, 3, 64, 64),)


def other_inputs():
    return [(torch.rand(3, 3, 128, 64),), (torch.rand(1, 3, 96, 80),)]


def probe_inputs():
    return other_inputs()

"""torchvision Mask R-CNN exported from a batched image tensor with every axis marked dynamic: the transform
iterates the batch (`for img in images`, `images = [img for img in images]`, `image_sizes = [...]`) and
`postprocess_detections` loops `zip(pred_boxes_list, pred_scores_list, image_shapes)` building one dict per
image; the report's ONNX model returns n*4 outputs for the export batch n, only the first n images for a larger
batch and a SplitToSequence error for a smaller one. (RPN/RoIAlign replaced by a dense box head, masks and NMS
left out; the per-image split/loop/list-of-dicts output kept.)

Source: https://github.com/pytorch/vision/issues/2311
"""
from typing import Dict, List, Tuple

import torch
from torch import nn, Tensor
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-19"


def clip_boxes_to_image(boxes: Tensor, size: Tuple[int, int]) -> Tensor:
    dim = boxes.dim()
    boxes_x = boxes[..., 0::2]
    boxes_y = boxes[..., 1::2]
    height, width = size
    boxes_x = boxes_x.clamp(min=0, max=width)
    boxes_y = boxes_y.clamp(min=0, max=height)
    clipped_boxes = torch.stack((boxes_x, boxes_y), dim=dim)
    return clipped_boxes.reshape(boxes.shape)


class GeneralizedRCNNTransform(nn.Module):
    def __init__(self, image_mean, image_std):
        super().__init__()
        self.image_mean = image_mean
        self.image_std = image_std

    def normalize(self, image: Tensor) -> Tensor:
        dtype, device = image.dtype, image.device
        mean = torch.as_tensor(self.image_mean, dtype=dtype, device=device)
        std = torch.as_tensor(self.image_std, dtype=dtype, device=device)
        return (image - mean[:, None, None]) / std[:, None, None]

    def forward(self, images):
        images = [img for img in images]
        for i in range(len(images)):
            image = images[i]
            image = self.normalize(image)
            images[i] = image
        image_sizes = [img.shape[-2:] for img in images]
        images = torch.stack(images, 0)
        image_sizes_list: List[Tuple[int, int]] = []
        for image_size in image_sizes:
            image_sizes_list.append((image_size[0], image_size[1]))
        return images, image_sizes_list


class MaskRCNN(nn.Module):
    def __init__(self, num_classes=4, score_thresh=0.05):
        super().__init__()
        self.transform = GeneralizedRCNNTransform([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=4, padding=1), nn.ReLU())
        self.cls_logits = nn.Conv2d(16, num_classes, 1)
        self.bbox_pred = nn.Conv2d(16, num_classes * 4, 1)
        self.num_classes = num_classes
        self.score_thresh = score_thresh

    def postprocess_detections(self, class_logits, box_regression, proposals, image_shapes):
        device = class_logits.device
        num_classes = class_logits.shape[-1]

        boxes_per_image = [boxes_in_image.shape[0] for boxes_in_image in proposals]
        pred_boxes = box_regression.reshape(sum(boxes_per_image), -1, 4) + torch.cat(proposals, 0)[:, None]
        pred_scores = F.softmax(class_logits, -1)

        pred_boxes_list = pred_boxes.split(boxes_per_image, 0)
        pred_scores_list = pred_scores.split(boxes_per_image, 0)

        all_boxes = []
        all_scores = []
        all_labels = []
        for boxes, scores, image_shape in zip(pred_boxes_list, pred_scores_list, image_shapes):
            boxes = clip_boxes_to_image(boxes, image_shape)

            # create labels for each prediction
            labels = torch.arange(num_classes, device=device)
            labels = labels.view(1, -1).expand_as(scores)

            # remove predictions with the background label
            boxes = boxes[:, 1:]
            scores = scores[:, 1:]
            labels = labels[:, 1:]

            # batch everything, by making every class prediction be a separate instance
            boxes = boxes.reshape(-1, 4)
            scores = scores.reshape(-1)
            labels = labels.reshape(-1)

            # remove low scoring boxes
            inds = torch.where(scores > self.score_thresh)[0]
            boxes, scores, labels = boxes[inds], scores[inds], labels[inds]

            all_boxes.append(boxes)
            all_scores.append(scores)
            all_labels.append(labels)

        return all_boxes, all_scores, all_labels

    def forward(self, images):
        original_image_sizes: List[Tuple[int, int]] = []
        for img in images:
            val = img.shape[-2:]
            original_image_sizes.append((val[0], val[1]))

        images, image_sizes = self.transform(images)
        features = self.backbone(images)
        N, _, H, W = features.shape
        class_logits = self.cls_logits(features).permute(0, 2, 3, 1).reshape(N * H * W, -1)
        box_regression = self.bbox_pred(features).permute(0, 2, 3, 1).reshape(N * H * W, -1)

        ys, xs = torch.meshgrid(torch.arange(H) * 4.0, torch.arange(W) * 4.0, indexing="ij")
        anchors = torch.stack([xs, ys, xs + 16.0, ys + 16.0], -1).reshape(-1, 4)
        proposals = [anchors for _ in image_sizes]

        boxes, scores, labels = self.postprocess_detections(class_logits, box_regression, proposals, image_sizes)
        result: List[Dict[str, Tensor]] = []
        num_images = len(boxes)
        for i in range(num_images):
            result.append({"boxes": boxes[i], "labels": labels[i], "scores": scores[i]})
        return result


def make_model():
    return MaskRCNN().eval()


def example_inputs():
    return (torch.rand(2, 3, 64, 48),)


def other_inputs():
    return [(torch.rand(3, 3, 80, 64),), (torch.rand(1, 3, 48, 96),)]


def probe_inputs():
    return other_inputs()

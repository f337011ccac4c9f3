"""DETR object-detection pipeline exported end to end (preprocessing, model and `post_process_object_detection`),
as transformers' end-to-end exportable pipelines PR does: the pipeline passes the original image size as a Python
list `target_sizes=[(height, width)]`, and `post_process_object_detection` rebuilds it as
`torch.Tensor([i[0] for i in target_sizes])` before scaling the boxes, then keeps the detections above `threshold`
per image. (ResNet-50 backbone and the DETR transformer reduced to a conv stem and learned queries.)

Source: https://github.com/huggingface/transformers/pull/42829
"""
from typing import List

import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"image": {2: "height", 3: "width"}}
BLIND = "domains-53"


def center_to_corners_format(bboxes_center):
    center_x, center_y, width, height = bboxes_center.unbind(-1)
    bbox_corners = torch.stack(
        [(center_x - 0.5 * width), (center_y - 0.5 * height), (center_x + 0.5 * width), (center_y + 0.5 * height)],
        dim=-1,
    )
    return bbox_corners


class DetrObjectDetectionOutput:
    def __init__(self, logits, pred_boxes):
        self.logits = logits
        self.pred_boxes = pred_boxes


class TinyDetrForObjectDetection(nn.Module):
    def __init__(self, d_model=32, num_queries=10, num_labels=4):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, d_model, 7, stride=4, padding=3), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(1))
        self.query_position_embeddings = nn.Embedding(num_queries, d_model)
        self.class_labels_classifier = nn.Linear(d_model, num_labels + 1)
        self.bbox_predictor = nn.Linear(d_model, 4)

    def forward(self, pixel_values):
        feat = self.backbone(pixel_values).flatten(1)
        hidden = self.query_position_embeddings.weight.unsqueeze(0) + feat.unsqueeze(1)
        return DetrObjectDetectionOutput(self.class_labels_classifier(hidden), self.bbox_predictor(hidden).sigmoid())


class DetrImageProcessor:
    def post_process_object_detection(self, outputs, threshold: float = 0.5, target_sizes=None):
        out_logits, out_bbox = outputs.logits, outputs.pred_boxes

        if target_sizes is not None:
            if len(out_logits) != len(target_sizes):
                raise ValueError(
                    "Make sure that you pass in as many target sizes as the batch dimension of the logits"
                )

        prob = nn.functional.softmax(out_logits, -1)
        scores, labels = prob[..., :-1].max(-1)

        # Convert to [x0, y0, x1, y1] format
        boxes = center_to_corners_format(out_bbox)

        # Convert from relative [0, 1] to absolute [0, height] coordinates
        if target_sizes is not None:
            if isinstance(target_sizes, List):
                img_h = torch.Tensor([i[0] for i in target_sizes])
                img_w = torch.Tensor([i[1] for i in target_sizes])
            else:
                img_h, img_w = target_sizes.unbind(1)

            scale_fct = torch.stack([img_w, img_h, img_w, img_h], dim=1).to(boxes.device)
            boxes = boxes * scale_fct[:, None, :]

        results = []
        for s, l, b in zip(scores, labels, boxes):
            score = s[s > threshold]
            label = l[s > threshold]
            box = b[s > threshold]
            results.append({"scores": score, "labels": label, "boxes": box})

        return results


class ObjectDetectionPipelineModel(nn.Module):
    def __init__(self, threshold=0.3):
        super().__init__()
        self.model = TinyDetrForObjectDetection()
        self.image_processor = DetrImageProcessor()
        self.threshold = threshold
        self.register_buffer("image_mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("image_std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def forward(self, image):
        height, width = image.shape[-2:]
        pixel_values = nn.functional.interpolate(image / 255.0, size=(128, 128), mode="bilinear", align_corners=False)
        pixel_values = (pixel_values - self.image_mean) / self.image_std
        outputs = self.model(pixel_values)
        results = self.image_processor.post_process_object_detection(
            outputs, threshold=self.threshold, target_sizes=[(height, width)]
        )
        return results[0]["scores"], results[0]["labels"], results[0]["boxes"]


def make_model():
    return ObjectDetectionPipelineModel().eval()


def example_inputs():
    return (torch.rand(1, 3, 120, 160) * 255,)


def other_inputs():
    return [(torch.rand(1, 3, 200, 90) * 255,), (torch.rand(1, 3, 64, 256) * 255,)]


def probe_inputs():
    return other_inputs()

"""RT-DETRv2 (fork) `RTDETRPostProcessor` in deploy mode: after `topk` over all query x class scores it
de-duplicates the query indices per image with `torch.unique(index[b], dim=0, return_inverse=True)`
in a `for b in range(batch_size)` loop, takes the max score per box with `scatter_reduce`, and writes
`padded_unique_indices[b, :len(unique_box_indices)] = unique_box_indices`; the data-dependent length of
the unique result does not give ONNX a static shape, and the commit pads the unique indices instead
("fix: pad unique indices for onnx static shapes").

Source: https://github.com/lyuwenyu/RT-DETR/commit/10d81c5632f1b9d17981b3cd53b22cf028988c44
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"pred_logits": {0: "batch"}, "pred_boxes": {0: "batch"}, "orig_target_sizes": {0: "batch"}}
BLIND = "domains-33"


def box_cxcywh_to_xyxy(boxes):
    # torchvision.ops.box_convert(boxes, in_fmt='cxcywh', out_fmt='xyxy')
    cx, cy, w, h = boxes.unbind(-1)
    x1 = cx - 0.5 * w
    y1 = cy - 0.5 * h
    x2 = cx + 0.5 * w
    y2 = cy + 0.5 * h
    return torch.stack((x1, y1, x2, y2), dim=-1)


class RTDETRPostProcessor(nn.Module):
    def __init__(self, num_classes=5, use_focal_loss=True, num_top_queries=40):
        super().__init__()
        self.use_focal_loss = use_focal_loss
        self.num_top_queries = num_top_queries
        self.num_classes = int(num_classes)
        self.deploy_mode = True

    def forward(self, pred_logits, pred_boxes, orig_target_sizes: torch.Tensor):
        logits, boxes = pred_logits, pred_boxes

        bbox_pred = box_cxcywh_to_xyxy(boxes)
        bbox_pred *= orig_target_sizes.repeat(1, 2).unsqueeze(1)

        if not self.training:
            # Ignore 0-th index
            scores = F.sigmoid(logits[:, :, 1:])

            # This gives duplicate indices after integer division
            scores, index = torch.topk(scores.flatten(1), self.num_top_queries, dim=-1)
            index = index // (self.num_classes - 1)

            # Get the unique indexes and find max score for each index
            batch_size = logits.shape[0]
            max_scores = torch.zeros(scores.shape, device=scores.device, dtype=scores.dtype)
            padded_unique_indices = torch.zeros(scores.shape, device=scores.device, dtype=torch.long)
            for b in range(batch_size):
                unique_box_indices, inverse_indices = torch.unique(index[b], dim=0, return_inverse=True)
                a = torch.scatter_reduce(torch.zeros(self.num_top_queries, device=scores.device, dtype=scores.dtype),
                                         dim=0, index=inverse_indices, src=scores[b], reduce='amax')
                max_scores[b] = a
                padded_unique_indices[b, :len(unique_box_indices)] = unique_box_indices

            scores = max_scores
            index = padded_unique_indices

            # Probability of each class
            soft_labels = F.softmax(logits[:, :, 1:], dim=-1)
            labels = soft_labels.gather(dim=1, index=index.unsqueeze(-1).tile(1, 1, boxes.shape[-1]))
            boxes = bbox_pred.gather(dim=1, index=index.unsqueeze(-1).tile(1, 1, boxes.shape[-1]))

        if self.deploy_mode:
            return labels, boxes, scores


def make_model():
    return RTDETRPostProcessor().eval()


def _inputs(batch, queries=30, num_classes=5):
    logits = torch.randn(batch, queries, num_classes)
    boxes = torch.rand(batch, queries, 4) * 0.5 + 0.25
    sizes = torch.tensor([[640.0, 480.0]]).repeat(batch, 1)
    return (logits, boxes, sizes)


def example_inputs():
    return _inputs(2)


def other_inputs():
    return [_inputs(3), _inputs(1)]


def probe_inputs():
    return other_inputs()

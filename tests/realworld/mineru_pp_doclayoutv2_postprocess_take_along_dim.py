"""PP-DocLayoutV2 layout detector (RT-DETR + reading order, MinerU's port): the detection head sorts
the queries so the kept ones come first (`torch.argsort(mask.to(torch.int8), dim=1, descending=True)`)
and reorders class ids, boxes, logits and the mask with `torch.take_along_dim`. The mlx-mineru
export script for layout.onnx (torch.onnx.export, opset 17) monkey-patches `torch.take_along_dim` to
`torch.gather` first, because "torch.take_along_dim isn't in ONNX opset 17". The RT-DETR trunk and the
reading-order network are trimmed; their last-layer logits and reference boxes are the inputs.
(The script also notes that the in-graph argsort breaks ties among equal mask values differently in
torch and onnxruntime, so raw outputs differ on the tied rows.)

Source: https://github.com/raoqu/mlx-mineru/blob/a5d95510dfc1c26a2fa38c71864ffd067f7d8de6/scripts/export_layout_onnx.py
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"logits": {0: "batch"}, "raw_bboxes": {0: "batch"}}
BLIND = "operators-27"

NUM_LABELS = 25
NUM_QUERIES = 30


class PPDocLayoutV2DetectionHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.class_embed = nn.Linear(NUM_LABELS, NUM_LABELS)
        class_thresholds = [0.5] * NUM_LABELS
        class_order = list(reversed(range(NUM_LABELS)))
        self.register_buffer(
            "_class_thresholds_tensor",
            torch.tensor(class_thresholds, dtype=torch.float32),
            persistent=False,
        )
        self.register_buffer(
            "_class_order_tensor",
            torch.tensor(class_order, dtype=torch.long),
            persistent=False,
        )

    def forward(self, logits, raw_bboxes):
        logits = self.class_embed(logits)

        box_centers, box_sizes = raw_bboxes.split(2, dim=-1)
        bboxes = torch.cat([box_centers - 0.5 * box_sizes, box_centers + 0.5 * box_sizes], dim=-1) * 1000.0
        bboxes = bboxes.clamp_(0.0, 1000.0)

        max_logits, class_ids = logits.max(dim=-1)
        max_probs = max_logits.sigmoid()
        thresholds = self._class_thresholds_tensor[class_ids]
        mask = max_probs >= thresholds
        indices = torch.argsort(mask.to(torch.int8), dim=1, descending=True)

        sorted_class_ids = torch.take_along_dim(class_ids, indices, dim=1)
        sorted_boxes = torch.take_along_dim(bboxes, indices[..., None].expand(-1, -1, 4), dim=1)
        pred_boxes = torch.take_along_dim(raw_bboxes, indices[..., None].expand(-1, -1, 4), dim=1)
        logits = torch.take_along_dim(logits, indices[..., None].expand(-1, -1, logits.size(-1)), dim=1)
        sorted_mask = torch.take_along_dim(mask, indices, dim=1)

        pad_boxes = torch.where(sorted_mask[..., None], sorted_boxes, torch.zeros_like(sorted_boxes))
        pad_class_ids = torch.where(sorted_mask, sorted_class_ids, torch.zeros_like(sorted_class_ids))
        pad_class_ids = self._class_order_tensor[pad_class_ids]
        return logits, pred_boxes, pad_boxes, pad_class_ids


def make_model():
    return PPDocLayoutV2DetectionHead().eval()


def _batch(b):
    return (torch.randn(b, NUM_QUERIES, NUM_LABELS), torch.rand(b, NUM_QUERIES, 4))


def example_inputs():
    return _batch(1)


def other_inputs():
    return [_batch(3), _batch(2)]


def probe_inputs():
    return other_inputs()

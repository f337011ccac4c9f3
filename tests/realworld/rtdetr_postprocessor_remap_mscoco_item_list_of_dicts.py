"""RT-DETR (rtdetr_pytorch) `RTDETRPostProcessor.forward`: with the COCO config's `remap_mscoco_category: True`
it remaps every top-k label through a Python dict, `torch.tensor([mscoco_label2category[int(x.item())] for x in
labels.flatten()])`, and returns a list of per-image dicts; the source marks `# TODO for onnx export` and
`tools/export_onnx.py` calls `postprocessor.deploy()` so that `deploy_mode` returns `labels, boxes, scores` before
the remap.

Source: https://github.com/lyuwenyu/RT-DETR/blob/068dfde65f2667ad6555883c69d73de886518cad/rtdetr_pytorch/src/zoo/rtdetr/rtdetr_postprocessor.py
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"pred_logits": {0: "N"}, "pred_boxes": {0: "N"}, "orig_target_sizes": {0: "N"}}
BLIND = "domains-44"

# src/data/coco/coco_dataset.py: mscoco_category2name keys (names trimmed)
_mscoco_category_ids = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
                        27, 28, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 46, 47, 48, 49, 50, 51,
                        52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 67, 70, 72, 73, 74, 75, 76, 77,
                        78, 79, 80, 81, 82, 84, 85, 86, 87, 88, 89, 90]
mscoco_category2label = {k: i for i, k in enumerate(_mscoco_category_ids)}
mscoco_label2category = {v: k for k, v in mscoco_category2label.items()}


def _box_cxcywh_to_xyxy(boxes):
    # torchvision.ops.box_convert(boxes, in_fmt='cxcywh', out_fmt='xyxy')
    cx, cy, w, h = boxes.unbind(-1)
    x1 = cx - 0.5 * w
    y1 = cy - 0.5 * h
    x2 = cx + 0.5 * w
    y2 = cy + 0.5 * h
    return torch.stack((x1, y1, x2, y2), dim=-1)


class RTDETRPostProcessor(nn.Module):
    def __init__(self, num_classes=80, use_focal_loss=True, num_top_queries=300, remap_mscoco_category=False) -> None:
        super().__init__()
        self.use_focal_loss = use_focal_loss
        self.num_top_queries = num_top_queries
        self.num_classes = num_classes
        self.remap_mscoco_category = remap_mscoco_category
        self.deploy_mode = False

    def forward(self, outputs, orig_target_sizes):

        logits, boxes = outputs['pred_logits'], outputs['pred_boxes']

        bbox_pred = _box_cxcywh_to_xyxy(boxes)
        bbox_pred *= orig_target_sizes.repeat(1, 2).unsqueeze(1)

        if self.use_focal_loss:
            scores = F.sigmoid(logits)
            scores, index = torch.topk(scores.flatten(1), self.num_top_queries, axis=-1)
            labels = index % self.num_classes
            index = index // self.num_classes
            boxes = bbox_pred.gather(dim=1, index=index.unsqueeze(-1).repeat(1, 1, bbox_pred.shape[-1]))

        else:
            scores = F.softmax(logits, dim=-1)[:, :, :-1]
            scores, labels = scores.max(dim=-1)
            boxes = bbox_pred
            if scores.shape[1] > self.num_top_queries:
                scores, index = torch.topk(scores, self.num_top_queries, dim=-1)
                labels = torch.gather(labels, dim=1, index=index)
                boxes = torch.gather(boxes, dim=1, index=index.unsqueeze(-1).tile(1, 1, boxes.shape[-1]))

        # TODO for onnx export
        if self.deploy_mode:
            return labels, boxes, scores

        # TODO
        if self.remap_mscoco_category:
            labels = torch.tensor([mscoco_label2category[int(x.item())] for x in labels.flatten()])\
                .to(boxes.device).reshape(labels.shape)

        results = []
        for lab, box, sco in zip(labels, boxes, scores):
            result = dict(labels=lab, boxes=box, scores=sco)
            results.append(result)

        return results


class Model(nn.Module):
    # the decoder's outputs dict is built from the two head tensors
    def __init__(self):
        super().__init__()
        self.postprocessor = RTDETRPostProcessor(num_classes=80, use_focal_loss=True, num_top_queries=30,
                                                 remap_mscoco_category=True)

    def forward(self, pred_logits, pred_boxes, orig_target_sizes):
        outputs = {'pred_logits': pred_logits, 'pred_boxes': pred_boxes}
        return self.postprocessor(outputs, orig_target_sizes)


def make_model():
    return Model().eval()


def example_inputs():
    return (torch.randn(2, 50, 80), torch.rand(2, 50, 4), torch.tensor([[640., 480.], [320., 320.]]))


def other_inputs():
    return [(torch.randn(3, 50, 80), torch.rand(3, 50, 4), torch.tensor([[640., 640.], [800., 600.], [300., 500.]])),
            (torch.randn(1, 50, 80), torch.rand(1, 50, 4), torch.tensor([[1280., 720.]]))]


def probe_inputs():
    return other_inputs()

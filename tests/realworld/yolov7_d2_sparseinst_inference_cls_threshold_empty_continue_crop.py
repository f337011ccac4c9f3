"""SparseInst in yolov7_d2 (detectron2-based) cannot be exported to ONNX: its inference keeps, per image,
the instances whose score passes `cls_threshold` (`scores[keep]`), skips to the next image
`if scores.size(0) == 0`, rescores by maskness and resizes the kept masks to the padded size, crops
`[:, :, :h, :w]` and resizes again to the original size; the export with export_onnx.py fails (the maintainer
later added a separate `inference_onnx` path that uses a fixed `torch.topk(scores, k=50)` instead).
(Backbone/encoder/decoder are reduced to small convs; `inference` is the repository's, with the
detectron2 `Instances` replaced by a tuple of its fields.)

Source: https://github.com/lucasjinreal/yolov7_d2/issues/21
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"image": {2: "height", 3: "width"}}
BLIND = "domains-74"


def rescoring_mask(scores, mask_pred, masks):
    mask_pred_ = mask_pred.float()
    return scores * ((masks * mask_pred_).sum([1, 2]) / (mask_pred_.sum([1, 2]) + 1e-6))


class SparseInst(nn.Module):
    def __init__(self, num_classes=5, num_masks=20, dim=16):
        super().__init__()
        self.size_divisibility = 32
        self.backbone = nn.Sequential(nn.Conv2d(3, dim, 3, stride=8, padding=1), nn.ReLU())
        self.inst_kernels = nn.Conv2d(dim, num_masks, 1)
        self.cls_score = nn.Linear(dim, num_classes)
        self.objectness = nn.Linear(dim, 1)
        self.register_buffer("pixel_mean", torch.tensor([123.675, 116.28, 103.53]).view(3, 1, 1))
        self.register_buffer("pixel_std", torch.tensor([58.395, 57.12, 57.375]).view(3, 1, 1))
        self.cls_threshold = 0.8
        self.mask_threshold = 0.45

    def normalizer(self, image):
        image = (image - self.pixel_mean) / self.pixel_std
        return image

    def decoder(self, features):
        pred_masks = self.inst_kernels(features)                              # B, N, H/8, W/8
        inst_feats = torch.einsum("bnhw,bchw->bnc", pred_masks.softmax(1), features)
        return {"pred_logits": self.cls_score(inst_feats), "pred_masks": pred_masks,
                "pred_scores": self.objectness(inst_feats)}

    def forward(self, image):
        image_sizes = [tuple(im.shape[-2:]) for im in image]
        images = self.normalizer(image)
        h, w = images.shape[-2:]
        stride = self.size_divisibility
        images = F.pad(images, (0, (w + stride - 1) // stride * stride - w, 0, (h + stride - 1) // stride * stride - h))
        max_shape = images.shape[2:]
        features = self.backbone(images)
        output = self.decoder(features)
        batched_inputs = [{"height": s[0], "width": s[1]} for s in image_sizes]
        results = self.inference(output, batched_inputs, max_shape, image_sizes)
        return results[0]

    def inference(self, output, batched_inputs, max_shape, image_sizes):
        results = []
        pred_scores = output["pred_logits"].sigmoid()
        pred_masks = output["pred_masks"].sigmoid()
        pred_objectness = output["pred_scores"].sigmoid()
        pred_scores = torch.sqrt(pred_scores * pred_objectness)

        for _, (
            scores_per_image,
            mask_pred_per_image,
            batched_input,
            img_shape,
        ) in enumerate(zip(pred_scores, pred_masks, batched_inputs, image_sizes)):

            ori_shape = (batched_input["height"], batched_input["width"])
            # max/argmax
            scores, labels = scores_per_image.max(dim=-1)
            # cls threshold
            keep = scores > self.cls_threshold
            scores = scores[keep]
            labels = labels[keep]
            mask_pred_per_image = mask_pred_per_image[keep]

            if scores.size(0) == 0:
                results.append((scores, labels))
                continue

            h, w = img_shape
            # rescoring mask using maskness
            scores = rescoring_mask(
                scores, mask_pred_per_image > self.mask_threshold, mask_pred_per_image
            )

            # upsample the masks to the original resolution:
            # (1) upsampling the masks to the padded inputs, remove the padding area
            # (2) upsampling/downsampling the masks to the original sizes
            mask_pred_per_image = F.interpolate(
                mask_pred_per_image.unsqueeze(1),
                size=max_shape,
                mode="bilinear",
                align_corners=False,
            )[:, :, :h, :w]
            mask_pred_per_image = F.interpolate(
                mask_pred_per_image,
                size=ori_shape,
                mode="bilinear",
                align_corners=False,
            ).squeeze(1)

            mask_pred = mask_pred_per_image > self.mask_threshold

            results.append((mask_pred, scores, labels))
        return results


def make_model():
    return SparseInst().eval()


def example_inputs():
    return (torch.rand(1, 3, 100, 140) * 255,)


def other_inputs():
    return [(torch.rand(1, 3, 128, 96) * 255,), (torch.rand(1, 3, 75, 200) * 255,)]


def probe_inputs():
    return other_inputs()

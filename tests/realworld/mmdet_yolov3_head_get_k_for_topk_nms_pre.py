"""mmdetection YOLOv3 exported with `pytorch2onnx.py --dynamic-export`: `YOLOV3Head._get_bboxes` takes a
per-level top-k with `nms_pre = get_k_for_topk(nms_pre_tensor, bbox_pred.shape[1])` (in ONNX export:
`torch.where(k < size, k, size)` with the level's anchor count read from the shape) and then
`if nms_pre > 0: conf_pred.topk(nms_pre)`; running the exported model in onnxruntime on another image size
fails with "TopK ... k argument [1000] should not be greater than specified axis dim value [855]".
(Box decoding and the YOLO grid anchors kept; the dummy ONNX NMS after the top-k left out.)

Source: https://github.com/open-mmlab/mmdetection/issues/5452
"""
import os

import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "control_flow"
DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-29"


def get_k_for_topk(k, size):
    ret_k = -1
    if k <= 0 or size <= 0:
        return ret_k
    if torch.onnx.is_in_onnx_export():
        is_trt_backend = os.environ.get('ONNX_BACKEND') == 'MMCVTensorRT'
        if is_trt_backend:
            # TensorRT does not support dynamic K with TopK op
            if 0 < k < size:
                ret_k = k
        else:
            # Always keep topk op for dynamic input in onnx for ONNX Runtime
            ret_k = torch.where(k < size, k, size)
    elif k < size:
        ret_k = k
    else:
        # ret_k is -1
        pass
    return ret_k


class YOLOBBoxCoder:
    def decode(self, bboxes, pred_bboxes, stride):
        assert pred_bboxes.size(-1) == bboxes.size(-1) == 4
        xy_centers = (bboxes[..., :2] + bboxes[..., 2:]) * 0.5 + (
            pred_bboxes[..., :2] - 0.5) * stride
        whs = (bboxes[..., 2:] -
               bboxes[..., :2]) * 0.5 * pred_bboxes[..., 2:].exp()
        decoded_bboxes = torch.stack(
            (xy_centers[..., 0] - whs[..., 0], xy_centers[..., 1] -
             whs[..., 1], xy_centers[..., 0] + whs[..., 0],
             xy_centers[..., 1] + whs[..., 1]),
            dim=-1)
        return decoded_bboxes


class YOLOV3Head(nn.Module):
    def __init__(self, num_classes=4, featmap_strides=(32, 16, 8), nms_pre=1000):
        super().__init__()
        self.num_classes = num_classes
        self.num_attrib = 5 + num_classes
        self.num_anchors = 3
        self.num_levels = len(featmap_strides)
        self.featmap_strides = featmap_strides
        self.test_cfg = dict(nms_pre=nms_pre)
        self.bbox_coder = YOLOBBoxCoder()
        self.stems = nn.ModuleList([nn.Conv2d(3, 8, s, stride=s) for s in featmap_strides])
        self.convs_pred = nn.ModuleList([nn.Conv2d(8, self.num_anchors * self.num_attrib, 1)
                                         for _ in featmap_strides])
        base_sizes = [[(116, 90), (156, 198), (373, 326)], [(30, 61), (62, 45), (59, 119)],
                      [(10, 13), (16, 30), (33, 23)]]
        for i, (sizes, s) in enumerate(zip(base_sizes, featmap_strides)):
            wh = torch.tensor(sizes, dtype=torch.float32)
            base = torch.cat([s / 2. - wh / 2, s / 2. + wh / 2], dim=1)  # (3, 4) xyxy around the cell centre
            self.register_buffer(f"base_anchors{i}", base)

    def grid_anchors(self, featmap_sizes, device):
        mlvl_anchors = []
        for i in range(self.num_levels):
            feat_h, feat_w = featmap_sizes[i]
            stride = self.featmap_strides[i]
            shift_x = torch.arange(0, feat_w, device=device) * stride
            shift_y = torch.arange(0, feat_h, device=device) * stride
            shift_yy, shift_xx = torch.meshgrid(shift_y, shift_x, indexing="ij")
            shifts = torch.stack([shift_xx.reshape(-1), shift_yy.reshape(-1),
                                  shift_xx.reshape(-1), shift_yy.reshape(-1)], dim=-1).float()
            anchors = getattr(self, f"base_anchors{i}")[None, :, :] + shifts[:, None, :]
            mlvl_anchors.append(anchors.view(-1, 4))
        return mlvl_anchors

    def _get_bboxes(self, pred_maps_list, mlvl_anchors, cfg):
        batch_size = pred_maps_list[0].shape[0]
        device = pred_maps_list[0].device
        # convert to tensor to keep tracing
        nms_pre_tensor = torch.tensor(
            cfg.get('nms_pre', -1), device=device, dtype=torch.long)

        multi_lvl_bboxes = []
        multi_lvl_cls_scores = []
        multi_lvl_conf_scores = []
        for i in range(self.num_levels):
            pred_map = pred_maps_list[i]
            stride = self.featmap_strides[i]
            pred_map = pred_map.permute(0, 2, 3, 1).reshape(batch_size, -1, self.num_attrib)
            # Inplace operation like
            # ```pred_map[..., :2] = \torch.sigmoid(pred_map[..., :2])```
            # would create constant tensor when exporting to onnx
            pred_map_conf = torch.sigmoid(pred_map[..., :2])
            pred_map_rest = pred_map[..., 2:]
            pred_map = torch.cat([pred_map_conf, pred_map_rest], dim=-1)
            pred_map_boxes = pred_map[..., :4]
            multi_lvl_anchor = mlvl_anchors[i]
            multi_lvl_anchor = multi_lvl_anchor.expand_as(pred_map_boxes)
            bbox_pred = self.bbox_coder.decode(multi_lvl_anchor,
                                               pred_map_boxes, stride)
            # conf and cls
            conf_pred = torch.sigmoid(pred_map[..., 4])
            cls_pred = torch.sigmoid(pred_map[..., 5:]).view(
                batch_size, -1, self.num_classes)  # Cls pred one-hot.

            # Get top-k prediction
            nms_pre = get_k_for_topk(nms_pre_tensor, bbox_pred.shape[1])
            if nms_pre > 0:
                _, topk_inds = conf_pred.topk(nms_pre)
                batch_inds = torch.arange(batch_size).view(
                    -1, 1).expand_as(topk_inds).long()
                # Avoid onnx2tensorrt issue in https://github.com/NVIDIA/TensorRT/issues/1134 # noqa: E501
                transformed_inds = (
                    bbox_pred.shape[1] * batch_inds + topk_inds)
                bbox_pred = bbox_pred.reshape(-1,
                                              4)[transformed_inds, :].reshape(
                                                  batch_size, -1, 4)
                cls_pred = cls_pred.reshape(
                    -1, self.num_classes)[transformed_inds, :].reshape(
                        batch_size, -1, self.num_classes)
                conf_pred = conf_pred.reshape(-1, 1)[transformed_inds].reshape(
                    batch_size, -1)

            # Save the result of current scale
            multi_lvl_bboxes.append(bbox_pred)
            multi_lvl_cls_scores.append(cls_pred)
            multi_lvl_conf_scores.append(conf_pred)

        batch_mlvl_bboxes = torch.cat(multi_lvl_bboxes, dim=1)
        batch_mlvl_scores = torch.cat(multi_lvl_cls_scores, dim=1)
        batch_mlvl_conf_scores = torch.cat(multi_lvl_conf_scores, dim=1)
        return batch_mlvl_bboxes, batch_mlvl_scores, batch_mlvl_conf_scores

    def forward(self, img):
        pred_maps = [conv(stem(img)) for stem, conv in zip(self.stems, self.convs_pred)]
        featmap_sizes = [pred_maps[i].shape[-2:] for i in range(self.num_levels)]
        mlvl_anchors = self.grid_anchors(featmap_sizes, img.device)
        return self._get_bboxes(pred_maps, mlvl_anchors, self.test_cfg)


def make_model():
    return YOLOV3Head().eval()


def example_inputs():
    # 608-class export size: every level has more than nms_pre=1000 anchors (stride 32: 20*20*3 = 1200)
    return (torch.randn(1, 3, 640, 640),)


def other_inputs():
    # 480x608: the stride-32 level has 15*19*3 = 855 anchors, fewer than nms_pre (the report's 855)
    return [(torch.randn(2, 3, 704, 640),), (torch.randn(1, 3, 480, 608),)]


def probe_inputs():
    return other_inputs()

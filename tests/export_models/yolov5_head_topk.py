"""MMYOLO's YOLOv5 head post-processing (tests/realworld/mmyolo_yolov5_head_empty_scores_topk.py with
its empty exit taken in eager only, ONX610): `filter_scores_and_topk` keeps `min(topk, n)` of a
selection, and torch.export bounds that count with a runtime assertion beyond int64, whose
comparison, unread once torch.onnx removes the assertion, its translation cannot hold."""
import torch
from torch import nn


def filter_scores_and_topk(scores, score_thr, topk, results=None):
    valid_mask = scores > score_thr
    scores = scores[valid_mask]
    valid_idxs = torch.nonzero(valid_mask)

    num_topk = min(topk, valid_idxs.size(0))
    # torch.sort is actually faster than .topk (at least on GPUs)
    scores, idxs = scores.sort(descending=True)
    scores = scores[:num_topk]
    topk_idxs = valid_idxs[idxs[:num_topk]]
    keep_idxs, labels = topk_idxs.unbind(dim=1)

    filtered_results = None
    if results is not None:
        if isinstance(results, dict):
            filtered_results = {k: v[keep_idxs] for k, v in results.items()}
        elif isinstance(results, list):
            filtered_results = [result[keep_idxs] for result in results]
        elif isinstance(results, torch.Tensor):
            filtered_results = results[keep_idxs]
    return scores, labels, keep_idxs, filtered_results


class YOLOv5HeadPostProcess(nn.Module):
    def __init__(self):
        super().__init__()
        self.test_cfg = dict(multi_label=True, nms_pre=30, score_thr=0.1)

    def forward(self, bboxes, scores, objectness):
        cfg = self.test_cfg
        scores = scores.sigmoid()
        objectness = objectness.sigmoid()

        score_thr = cfg.get('score_thr', -1)
        # yolox_style does not require the following operations
        if objectness is not None and score_thr > 0 and not cfg.get('yolox_style', False):
            conf_inds = objectness > score_thr
            bboxes = bboxes[conf_inds, :]
            scores = scores[conf_inds, :]
            objectness = objectness[conf_inds]

        if objectness is not None:
            # conf = obj_conf * cls_conf
            scores *= objectness[:, None]

        if not torch.compiler.is_exporting() and scores.shape[0] == 0:
            return bboxes, scores[:, 0], scores[:, 0].int()

        nms_pre = cfg.get('nms_pre', 100000)
        if cfg['multi_label'] is False:
            scores, labels = scores.max(1, keepdim=True)
            scores, _, keep_idxs, results = filter_scores_and_topk(
                scores, score_thr, nms_pre, results=dict(labels=labels[:, 0]))
            labels = results['labels']
        else:
            scores, labels, keep_idxs, _ = filter_scores_and_topk(scores, score_thr, nms_pre)

        return bboxes[keep_idxs], scores, labels


def make_model():
    return YOLOv5HeadPostProcess()


def _priors(n, obj_shift=0.0):
    return (torch.rand(n, 4) * 320, torch.randn(n, 5), torch.randn(n) + obj_shift)


def example_inputs():
    return _priors(84)


def _other_inputs():
    return [_priors(336), _priors(21, obj_shift=-20.0), _priors(120)]


def probe_inputs():
    return _other_inputs()

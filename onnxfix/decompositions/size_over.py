import torch


def _onnx_size_over(size, k):
    # `size > k`, the test of an `if` that cuts a tensor to its k best rows when it has more
    # (mmdetection's `if scores.shape[0] > nms_pre:` around a topk or a sort): in eager exactly
    # that test. While exporting, where the size is symbolic (torch.export) or a traced 0-d tensor
    # (the legacy exporter), deciding it would keep the example's branch for every size; the branch
    # is taken for every size instead, its `_onnx_topk_over` / `_onnx_sort_over` keeping every row
    # in its order where the size is not over k, so the cut's slices and gathers change nothing there.
    if isinstance(size, torch.SymInt) or (isinstance(size, torch.Tensor) and torch.jit.is_tracing()):
        return True
    return size > k

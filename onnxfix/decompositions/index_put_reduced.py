import torch


def _onnx_index_put_reduced(input, indices, values, accumulate=False):
    # index_put(accumulate=True) under the dynamo exporter: its ScatterND(reduction="add") with
    # constant indices that cover the first dimension in order is rewritten by onnxscript's
    # optimizer (ScatterAllStatic) into its updates alone, so the input's values are dropped (a
    # label map that is the identity). While either exporter exports, _onnx_index_put_rows (one
    # row index, then scatter_add: ScatterElements, which the rewrite leaves alone). Eager keeps
    # the op.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself
        return torch.index_put(input, indices, values, accumulate)
    if not accumulate:
        return torch.index_put(input, indices, values, accumulate)
    return _onnx_index_put_rows(input, indices, values, accumulate)

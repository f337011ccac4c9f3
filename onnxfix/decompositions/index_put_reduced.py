import torch


def _onnx_index_put_reduced(op, input, indices, values, accumulate=False):
    # index_put / index_put_ with accumulate=True under the dynamo exporter (functionalized, both
    # are aten.index_put): its ScatterND(reduction="add") with constant indices that cover the
    # first dimension in order is rewritten by onnxscript's optimizer (ScatterAllStatic) into its
    # updates alone, so the input's values are dropped (a label map that is the identity). While
    # either exporter exports, _onnx_index_put_rows (one row index, then scatter_add:
    # ScatterElements, which the rewrite leaves alone), written into the input for index_put_.
    # Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return op(input, indices, values, accumulate)
    if not accumulate:
        return op(input, indices, values, accumulate)
    result = _onnx_index_put_rows(input, indices, values, accumulate)
    return input.copy_(result) if getattr(op, "__name__", "") == "index_put_" else result

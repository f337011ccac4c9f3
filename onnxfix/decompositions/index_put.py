import torch


def _onnx_index_put(input, indices, values, accumulate=False):
    # index_put with integer index tensors: the legacy exporter writes a ScatterND that keeps one
    # of the duplicates instead of summing them; while it exports, _onnx_index_put_rows (one row
    # index, then scatter_add or scatter).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.index_put(input, indices, values, accumulate)
    return _onnx_index_put_rows(input, indices, values, accumulate)

import torch


def _onnx_column_stack(tensors):
    # 0-d and 1-d tensors as columns, then concatenated along dimension 1, as ATen.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.column_stack(tensors)
    return torch.cat([t.reshape(-1, 1) if t.dim() <= 1 else t for t in tensors], 1)

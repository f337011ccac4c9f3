import torch


def _onnx_tensor_list(t):
    # t.tolist() everywhere but under the legacy exporter's trace, where the numbers would be recorded
    # as constants (an expert's split sizes frozen to the export batch's routing): there the same
    # nesting of lists holds 0-d tensors, which split sizes, size arguments, slice bounds and
    # arithmetic take as graph values.
    if not (isinstance(t, torch.Tensor) and torch.jit.is_tracing()):
        return t.tolist()
    if t.dim() == 0:
        return t
    return [_onnx_tensor_list(row) for row in t.unbind(0)]

import torch


def _onnx_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    # Normalisation over the last len(normalized_shape) dimensions: (x - mean) / sqrt(var + eps)
    # (biased variance) times weight plus bias, as ATen. The legacy exporter needs normalized_shape
    # as constants and fails when it is read from the input (`F.layer_norm(x, x.shape[-1:])`:
    # "Failed to export a node ... onnx::Gather ... in list node"); only its length is used here.
    # Eager and dynamo keep the op.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.layer_norm(input, normalized_shape, weight, bias, eps)
    dims = tuple(range(-len(normalized_shape), 0))
    mean = input.mean(dims, keepdim=True)
    centred = input - mean
    output = centred / torch.sqrt((centred * centred).mean(dims, keepdim=True) + eps)
    if weight is not None:
        output = output * weight
    return output if bias is None else output + bias

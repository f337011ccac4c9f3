import torch


def _onnx_outer(input, vec2):
    # torch.outer of vectors of two dtypes: the legacy exporter casts the product to the first
    # one's type (an int64 position vector times float frequencies, RoPE's torch.outer(t, freqs),
    # comes out all integers). ATen's own composite, reshape then multiply, promotes as eager.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.outer(input, vec2)
    return input.reshape(input.shape[0], 1) * vec2

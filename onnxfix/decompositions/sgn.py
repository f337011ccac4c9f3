import torch


def _onnx_sgn(input):
    # For real tensors sgn is sign (-1, 0, 1; torch.sign's kernel). Complex: x / |x|, 0 at 0.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.sgn(input)
    if input.is_complex():
        magnitude = input.abs()
        return torch.where(magnitude == 0, torch.zeros_like(input), input / magnitude)
    return torch.sign(input)

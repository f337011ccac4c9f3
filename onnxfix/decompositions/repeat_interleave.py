import torch


def _onnx_repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    # repeat_interleave by one count along a dim (RoPE's `cos[..., :d].repeat_interleave(2, dim=-1)`,
    # GQA's key/value heads): the legacy exporter's symbolic adds the rank to a negative dim in
    # place, in the graph constant every equal literal shares, so another -1 of the model reads
    # rank - 1 (a later cat fails, "All tensors must have the same rank"; an expand, "invalid expand
    # shape"). While the legacy exporter traces, the rows unsqueezed, expanded and flattened: a
    # rearrangement, exact, with no symbolic. Eager and torch.export keep the op.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():
        return _onnx_repeat_interleave_op(input, repeats, dim, output_size)
    if not isinstance(repeats, int) or dim is None:
        return _onnx_repeat_interleave_op(input, repeats, dim, output_size)
    d = dim % input.dim()
    expanded = input.unsqueeze(d + 1).expand(*input.shape[:d + 1], repeats, *input.shape[d + 1:])
    return expanded.flatten(d, d + 1)


def _onnx_repeat_interleave_op(input, repeats, dim, output_size):
    if repeats is None:  # `torch.repeat_interleave(counts)`: the counts are the input
        return torch.repeat_interleave(input, output_size=output_size)
    return torch.repeat_interleave(input, repeats, dim, output_size=output_size)

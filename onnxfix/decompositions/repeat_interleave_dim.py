import torch


def _onnx_repeat_interleave_dim(input, repeats=None, dim=None, *, output_size=None):
    # repeat_interleave along a dim counted from the end (RoPE's `repeat_interleave(freqs, 2,
    # dim=-1)`): the legacy exporter's symbolic adds the rank to that dim in place, in the graph
    # constant every equal literal shares, so each other -1 of the model (`view(b, -1)`,
    # `expand(n, -1, 1)`) reads rank - 1 and the exported model fails or computes another shape.
    # _onnx_repeat_interleave writes the repetition as an unsqueeze, an expand and a flatten while
    # the legacy exporter traces (exact); eager and dynamo keep the op.
    return _onnx_repeat_interleave(input, repeats, dim, output_size=output_size)

import torch


def _onnx_channel_shuffle(input, groups):
    # (n, g, c/g, ...) with the two group axes swapped, back to (n, c, ...): ATen's layout moves,
    # exact (the legacy exporter has no symbolic for aten::channel_shuffle; ShuffleNet's
    # nn.ChannelShuffle). Eager and dynamo keep the op.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.channel_shuffle(input, groups)
    n, c = input.shape[0], input.shape[1]
    rest = input.shape[2:]
    grouped = input.reshape(n, groups, c // groups, *rest)
    return grouped.transpose(1, 2).reshape(n, c, *rest)

import torch


def _onnx_adaptive_max_pool3d(input, output_size, return_indices=False):
    # Separable (_onnx_adaptive_bin_maxima): depth bins, then rows, then columns. Neither
    # exporter translates a 3-D adaptive max pool (a kept axis: legacy's "output_size is not
    # constant"; dynamo has no aten.adaptive_max_pool3d).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.nn.functional.adaptive_max_pool3d(input, output_size, return_indices)
    if return_indices:  # positions in the whole box: not from separate axes
        return torch.nn.functional.adaptive_max_pool3d(input, output_size, return_indices)
    if not isinstance(output_size, (list, tuple)):
        output_size = (output_size,) * 3
    for axis, out in zip((-3, -2, -1), output_size):  # noqa: ONX603 - three fixed axes
        input = _onnx_adaptive_bin_maxima(input, axis, out)
    return input

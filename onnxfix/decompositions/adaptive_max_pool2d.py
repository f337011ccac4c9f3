import torch


def _onnx_adaptive_max_pool2d(input, output_size, return_indices=False):
    # Values: separable (_onnx_adaptive_bin_maxima), row bins then column bins, the same bins as
    # torch; an axis kept (None) or pooled to 1 may have any size. Indices (return_indices=True)
    # are flat h * W + w positions of the first maximum, one amax per output cell (H, W static).
    height, width = input.shape[-2], input.shape[-1]
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    if not return_indices:
        return _onnx_adaptive_bin_maxima(_onnx_adaptive_bin_maxima(input, -2, output_size[0]), -1, output_size[1])
    out_h = height if output_size[0] is None else output_size[0]
    out_w = width if output_size[1] is None else output_size[1]
    values, indices = [], []
    for i in range(out_h):  # noqa: ONX603 - unrolled on purpose: one cell per output row
        top, bottom = (i * height) // out_h, ((i + 1) * height + out_h - 1) // out_h
        for j in range(out_w):  # noqa: ONX603
            left, right = (j * width) // out_w, ((j + 1) * width + out_w - 1) // out_w
            window = input[..., top:bottom, left:right]
            values.append(window.amax((-2, -1)))
            if return_indices:
                local = window.flatten(-2).argmax(-1)
                row = torch.div(local, right - left, rounding_mode="trunc")
                indices.append((top + row) * width + left + local - row * (right - left))
    shape = (*input.shape[:-2], out_h, out_w)
    pooled = torch.stack(values, -1).reshape(shape)
    if return_indices:
        return pooled, torch.stack(indices, -1).reshape(shape)
    return pooled

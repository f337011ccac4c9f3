import torch


def _onnx_adaptive_avg_pool2d(input, output_size):
    # torch averages rows floor(i*H/oh) .. ceil((i+1)*H/oh) for output row i and the same
    # columns; bins may overlap or differ in size. A rectangle's mean is the mean of its row
    # means: for each row bin, the rows inside it (a mask from bin edges computed with the
    # input's size as a tensor, so a size that is dynamic in the export stays so) are selected
    # and summed (a NaN or inf stays in its own bins), over the bin's count; then the same over
    # columns. The output size is a number (or a size the export knows, as interpolate's).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.nn.functional.adaptive_avg_pool2d(input, output_size)
    if not isinstance(output_size, (list, tuple)):
        output_size = (output_size, output_size)
    if all(isinstance(s, int) and s == 1 for s in output_size):  # global pooling (`--decompose` sees it too)
        return input.mean((-2, -1), keepdim=True)
    sizes = input.shape if torch.compiler.is_exporting() else torch._shape_as_tensor(input)
    for axis, out in ((-2, output_size[0]), (-1, output_size[1])):  # noqa: ONX603 - the two spatial axes
        if out is None:
            continue  # that size kept
        length = sizes[axis]
        bins = torch.arange(out, device=input.device).unsqueeze(1)
        start = bins * length // out
        end = ((bins + 1) * length + out - 1) // out
        positions = torch.arange(input.shape[axis], device=input.device).unsqueeze(0)
        inside = (positions >= start) & (positions < end)  # (out, length)
        if axis == -2:
            picked = torch.where(inside.unsqueeze(-1), input.unsqueeze(-3), torch.zeros_like(input).unsqueeze(-3))
            input = picked.sum(-2) / (end - start).to(input.dtype)
        else:
            picked = torch.where(inside, input.unsqueeze(-2), torch.zeros_like(input).unsqueeze(-2))
            input = picked.sum(-1) / (end - start).squeeze(1).to(input.dtype)
    return input

import torch


def _onnx_adaptive_avg_pool2d(input, output_size):
    # torch averages rows floor(i*H/oh) .. ceil((i+1)*H/oh) for output row i and the same
    # columns; bins may overlap or differ in size. A rectangle's mean is the mean of its row
    # means: average each row bin, then each column bin of those (unrolled over the output
    # size, so the output size must be static and H, W static at export time).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.nn.functional.adaptive_avg_pool2d(input, output_size)
    height, width = input.shape[-2], input.shape[-1]
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    out_h = height if output_size[0] is None else output_size[0]
    out_w = width if output_size[1] is None else output_size[1]
    if out_h == 1 and out_w == 1:  # global pooling (`onnxfix export --decompose` sees it too)
        return input.mean((-2, -1), keepdim=True)
    rows = []
    for i in range(out_h):  # noqa: ONX603 - unrolled on purpose: one slice per output row
        top, bottom = (i * height) // out_h, ((i + 1) * height + out_h - 1) // out_h
        rows.append(input[..., top:bottom, :].mean(-2, keepdim=True))
    input = torch.cat(rows, -2)
    columns = []
    for j in range(out_w):  # noqa: ONX603 - unrolled on purpose: one slice per output column
        left, right = (j * width) // out_w, ((j + 1) * width + out_w - 1) // out_w
        columns.append(input[..., left:right].mean(-1, keepdim=True))
    return torch.cat(columns, -1)

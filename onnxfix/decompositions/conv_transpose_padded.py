import torch


def _onnx_conv_transpose_padded(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                                dilation=1):
    # A transposed convolution whose output padding is not smaller than its stride (allowed by
    # ATen up to the dilation: `ConvTranspose2d(stride=1, dilation=2, output_padding=1)`):
    # onnxruntime's ConvTranspose refuses it ("output_padding (1) may be too large for stride (1)").
    # The output padding only uncrops the end of the same transposed convolution: while exporting,
    # the full convolution (no padding), zeros past its end for the uncropped positions (no input
    # reaches them), the crop, then the bias. Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return _onnx_conv_transpose(weight)(input, weight, bias, stride, padding, output_padding, groups, dilation)
    rank = weight.dim() - 2  # the input may be unbatched
    convolve = _onnx_conv_transpose(weight)
    stride, padding, output_padding, dilation = (
        tuple(v) if isinstance(v, (tuple, list)) else (v,) * rank for v in (stride, padding, output_padding, dilation))
    if all(o < s for o, s in zip(output_padding, stride)):
        return convolve(input, weight, bias, stride, padding, output_padding, groups, dilation)
    out = convolve(input, weight, None, stride, 0, 0, groups, dilation)
    for axis, (pad, extra) in enumerate(zip(padding, output_padding)):
        dim = out.dim() - rank + axis
        length = out.shape[dim] - 2 * pad + extra  # ATen's output size along this axis
        if extra > pad:  # positions past the full output: zeros
            shape = list(out.shape)
            shape[dim] = extra - pad
            out = torch.cat([out, out.new_zeros(shape)], dim=dim)
        out = out.narrow(dim, pad, length)
    return out if bias is None else out + bias.view(-1, *([1] * rank))


def _onnx_conv_transpose(weight):
    # F.conv_transpose1d / 2d / 3d, by the weight's rank (in, out / groups, *kernel)
    return (torch.nn.functional.conv_transpose1d, torch.nn.functional.conv_transpose2d,
            torch.nn.functional.conv_transpose3d)[weight.dim() - 3]

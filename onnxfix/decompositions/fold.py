import torch


def _onnx_fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    # F.fold (col2im, the overlap-add of an iSTFT or of patches) as one scatter_add: entry
    # (c, ki, kj, block bi, bj) of the input adds into pixel (bi * sH + ki * dH, bj * sW + kj * dW)
    # of the zero-padded output, which is then cropped. The legacy exporter's col2im needs static
    # sizes; here the block count stays a graph value. Eager and dynamo keep the op (the sums
    # are added in another order than ATen's col2im).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.fold(input, output_size, kernel_size, dilation, padding, stride)

    def pair(value):
        return tuple(value) if isinstance(value, (tuple, list)) else (value, value)

    (oh, ow), (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (
        pair(output_size), pair(kernel_size), pair(dilation), pair(padding), pair(stride))
    batched = input.dim() == 3
    columns = input if batched else input.unsqueeze(0)
    hp, wp = oh + 2 * ph, ow + 2 * pw
    nh = (hp - dh * (kh - 1) - 1) // sh + 1
    nw = (wp - dw * (kw - 1) - 1) // sw + 1
    device = input.device
    rows = torch.arange(kh, device=device).view(kh, 1, 1, 1) * dh + torch.arange(nh, device=device).view(1, 1, nh, 1) * sh
    cols = torch.arange(kw, device=device).view(1, kw, 1, 1) * dw + torch.arange(nw, device=device).view(1, 1, 1, nw) * sw
    target = (rows * wp + cols).reshape(1, 1, -1)  # ordered (ki, kj, bi, bj), as the input's columns
    n = columns.shape[0]
    columns = columns.reshape(n, -1, kh * kw * nh * nw)  # (N, C, kernel entries x blocks)
    c = columns.shape[1]
    out = columns.new_zeros(n, c, hp * wp).scatter_add(2, target.expand(n, c, -1), columns)
    out = out.view(n, c, hp, wp)[:, :, ph:ph + oh, pw:pw + ow]
    return out if batched else out.squeeze(0)

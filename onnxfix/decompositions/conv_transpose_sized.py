import torch


def _onnx_conv_transpose_sized(layer, input, output_size):
    # `layer(input, output_size=output_size)` for an nn.ConvTranspose1d/2d/3d. The layer derives an
    # output padding from the requested size, which both exporters record as a constant (the
    # dynamo exporter fails on a symbolic one). The output padding only uncrops the end of the
    # same transposed convolution, so the largest one the layer allows, cut to the requested
    # size, gives the same values at every kept position. Eager keeps the call.
    if not torch.onnx.is_in_onnx_export():
        return layer(input, output_size=output_size)
    rank = len(layer.stride)
    largest = tuple(max(s, d) - 1 for s, d in zip(layer.stride, layer.dilation))
    # (an output padding up to the dilation, past the stride, is one onnxruntime refuses: uncropped
    # by hand there)
    out = _onnx_conv_transpose_padded(input, layer.weight, layer.bias, layer.stride, layer.padding, largest,
                                      layer.groups, layer.dilation)
    for i, size in enumerate(list(output_size)[-rank:]):
        out = out.narrow(out.dim() - rank + i, 0, size)
    return out

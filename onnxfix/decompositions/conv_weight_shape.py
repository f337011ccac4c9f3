import torch


def _onnx_conv_weight_shape(op, input, weight, *args, **kwargs):
    # A convolution whose kernel is built in forward (kornia's filter2d: a Gaussian expanded over
    # the channels and reshaped with sizes read from tensors): the legacy exporter needs the
    # kernel's shape and sees only a Reshape of traced sizes ("convolution for kernel of unknown
    # shape"). While it traces, the kernel is reshaped to its sizes as Python numbers, constants
    # in the graph (kept only when the export matches PyTorch on inputs of other sizes). Eager
    # and dynamo run the op itself.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():
        return op(input, weight, *args, **kwargs)
    return op(input, weight.reshape([int(size) for size in weight.shape]), *args, **kwargs)

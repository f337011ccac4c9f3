import torch


def _onnx_bilinear(input1, input2, weight, bias=None):
    # y = x1^T A x2 + b for each output feature: ATen's own composite is this contraction (the
    # legacy exporter has no symbolic for aten::bilinear; it takes einsum). Eager and dynamo keep
    # the op.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.bilinear(input1, input2, weight, bias)
    output = torch.einsum("...i,oij,...j->...o", input1, weight, input2)
    return output if bias is None else output + bias

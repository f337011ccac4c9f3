import torch


def _onnx_vsplit(input, indices_or_sections):
    # tensor_split along dimension 0, as ATen (which first checks that an int divides it).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.vsplit(input, indices_or_sections)
    return torch.tensor_split(input, indices_or_sections, 0)

import torch


def _onnx_dsplit(input, indices_or_sections):
    # tensor_split along dimension 2, as ATen (which first checks the rank and that an int divides it).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.dsplit(input, indices_or_sections)
    return torch.tensor_split(input, indices_or_sections, 2)

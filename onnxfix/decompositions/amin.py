import torch


def _onnx_amin(input, dim=(), keepdim=False):
    # torch.amin with an empty or None `dim` (every dimension) given every dimension
    # instead: torch.export leaves an empty dim out, which onnxscript's aten_amin requires. The
    # same reduction (ONX523's source fix); a 0-d tensor is its own extreme.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.amin(input, dim, keepdim)
    if dim is not None and (not isinstance(dim, (list, tuple, torch.Size)) or len(dim) > 0):
        return torch.amin(input, dim, keepdim)  # an int (or NumPy integer), or the dims given
    if input.dim() == 0:
        return input.clone()
    return torch.amin(input, tuple(range(input.dim())), keepdim)

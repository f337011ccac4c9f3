import torch


def _onnx_aminmax(input, *, dim=None, keepdim=False):
    # (min, max) as torch.aminmax: amin and amax over `dim`, every dimension spelled out when it
    # is None (torch.export drops an empty dim, and onnxscript's amin / amax need it). Guarded:
    # ATen's aminmax can return another signed zero than amax (the max of [0.0, -0.0] is -0.0).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.aminmax(input, dim=dim, keepdim=keepdim)
    if input.dim() == 0:  # the value itself, whatever dim (0 or -1) and keepdim say
        return torch.return_types.aminmax((input.clone(), input.clone()))
    dims = tuple(range(input.dim())) if dim is None else dim
    return torch.return_types.aminmax((torch.amin(input, dims, keepdim), torch.amax(input, dims, keepdim)))

import torch


def _onnx_uniform(input, low=0.0, to=1.0):
    # input.uniform_(low, to): input filled with draws from U[low, to). torch.onnx translates it under
    # neither exporter (dynamo: prims.uniform; legacy: aten::uniform); while exporting, rand_like
    # (an ONNX RandomUniformLike: U[0, 1)) scaled into [low, to) and written into input, as the op
    # does. The same distribution; no export draws what PyTorch's generator draws.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself
        return input.uniform_(low, to)
    draw = torch.rand_like(input) * (to - low) + low
    # A draw just below `to` rounds onto it (about one in 8 million for [2, 3) in float32); ATen's
    # kernel (native/cpu/DistributionTemplates.h, uniform_kernel) returns `low` there, and so does this.
    return input.copy_(draw.masked_fill(draw == to, low))

import torch


def _onnx_pixel_shuffle(input, upscale_factor):
    # F.pixel_shuffle of a tensor with more than one batch dimension (DySample's 5-D sampling
    # coordinates): the legacy exporter takes 4-D inputs only; and of integer or bool codes (a
    # quantized head's): onnxruntime's DepthToSpace has float kernels only (float32_compute calls
    # this). While exporting, torch's own definition: (*, C * r * r, H, W) -> (*, C, r, r, H, W) ->
    # (*, C, H, r, W, r) -> (*, C, H * r, W * r), one reshape, a permutation and a reshape (a
    # rearrangement: exact for any dtype). Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.nn.functional.pixel_shuffle(input, upscale_factor)
    if input.dim() == 4 and input.is_floating_point():
        return torch.nn.functional.pixel_shuffle(input, upscale_factor)
    r = upscale_factor
    batch, (channels, height, width) = input.shape[:-3], input.shape[-3:]
    lead = input.dim() - 3
    x = input.reshape(*batch, channels // (r * r), r, r, height, width)
    order = (*range(lead), lead, lead + 3, lead + 1, lead + 4, lead + 2)
    return x.permute(order).reshape(*batch, channels // (r * r), height * r, width * r)

import torch


def _onnx_any_nonzero(input, *args, **kwargs):
    # `any` of a non-bool tensor: the legacy exporter casts the input to int64 and tests its sum
    # > 0, which truncates every |x| < 1 to 0 and lets negatives cancel positives
    # (`torch.any(torch.randn(...))` exports as False). While the legacy exporter traces,
    # `input != 0` is reduced instead: any() counts every nonzero element (NaN included) as true,
    # as `!= 0` does; uint8 keeps its uint8 result. Eager and dynamo run `torch.any` itself.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting() or input.dtype == torch.bool:
        return torch.any(input, *args, **kwargs)
    result = torch.any(input != 0, *args, **kwargs)
    return result.to(torch.uint8) if input.dtype == torch.uint8 else result

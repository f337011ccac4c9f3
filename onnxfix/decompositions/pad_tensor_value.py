import torch


def _onnx_pad_tensor_value(input, pad, mode="constant", value=None):
    # F.pad with `value=` a tensor (x-transformers' `value=torch.any(mem)`): ATen reads the value as
    # a Python number, which torch.export cannot decide ("Could not guard on data-dependent
    # expression") and the legacy exporter records as a constant. While exporting, the zero-padded
    # input, and the value wherever the padding is: a mask padded the same way picks one or the
    # other (exact: values are selected, none computed; negative pads crop both alike). A bool
    # input is selected as uint8 (onnxruntime's Where has no bool kernel). Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.nn.functional.pad(input, pad, mode=mode, value=value)
    if not isinstance(value, torch.Tensor) or mode != "constant":
        return torch.nn.functional.pad(input, pad, mode=mode, value=value)
    inside = torch.nn.functional.pad(torch.ones_like(input, dtype=torch.uint8), pad) != 0
    work = input.to(torch.uint8) if input.dtype == torch.bool else input
    fill = value.to(torch.bool) if input.dtype == torch.bool else value  # 0.5 is True, as ATen's fill
    out = torch.where(inside, torch.nn.functional.pad(work, pad), fill.to(work.dtype))
    return out.bool() if input.dtype == torch.bool else out

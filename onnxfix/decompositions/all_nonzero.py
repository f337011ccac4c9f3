import torch


def _onnx_all_nonzero(input, *args, **kwargs):
    # `all` of a non-bool tensor: the legacy exporter writes Not(input), which ONNX defines on
    # bool only (onnxruntime refuses the model on load: "Type 'tensor(float)' of input parameter
    # ... of operator (Not)"). While the legacy exporter traces, `input != 0` is reduced instead:
    # all() counts every nonzero element (NaN included) as true, as `!= 0` does; uint8 keeps its
    # uint8 result. Eager and dynamo run `torch.all` itself.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting() or input.dtype == torch.bool:
        return torch.all(input, *args, **kwargs)
    result = torch.all(input != 0, *args, **kwargs)
    return result.to(torch.uint8) if input.dtype == torch.uint8 else result

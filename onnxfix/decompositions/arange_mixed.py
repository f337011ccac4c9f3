import torch


def _onnx_arange_mixed(*args, **kwargs):
    # `torch.arange(start, end)` with an int and a float bound and no dtype: eager infers the
    # default float dtype; torch.onnx's function for aten.arange.start writes an ONNX Range of the
    # bounds as they come (an int64 beside a float) and onnxruntime refuses to load the model.
    # While exporting, such a call passes the dtype eager infers. Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.arange(*args, **kwargs)
    if "dtype" in kwargs or "out" in kwargs:
        return torch.arange(*args, **kwargs)
    bounds = [*args[:3], *(kwargs[k] for k in ("start", "end", "step") if k in kwargs)]
    floats = [isinstance(b, (float, torch.SymFloat)) for b in bounds]
    ints = [isinstance(b, (int, torch.SymInt)) and not isinstance(b, bool) for b in bounds]
    if any(floats) and any(ints):
        return torch.arange(*args, dtype=torch.get_default_dtype(), **kwargs)
    return torch.arange(*args, **kwargs)

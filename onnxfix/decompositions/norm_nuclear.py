import torch


def _onnx_norm_nuclear(op, input, *args, **kwargs):
    # torch.norm / Tensor.norm with p="nuc" (the old spelling of the nuclear norm) and
    # torch.linalg.norm with ord="nuc" (an ATen op of its own, not a call of matrix_norm): torch computes
    # torch.linalg.matrix_norm(input, "nuc", dim or every dimension, keepdim, dtype=dtype), which
    # neither exporter translates (an SVD). While exporting, that call through
    # _onnx_linalg_matrix_norm; every other call is the op itself. Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return op(input, *args, **kwargs)
    # torch.norm hands a mode every argument by keyword, `out=None` too
    # torch.linalg.norm names the order `ord`
    given = {**dict(zip(("p", "dim", "keepdim"), args)), **{k: v for k, v in kwargs.items() if k != "out" or v is not None}}
    p = given.pop("ord", given.get("p", "fro"))
    given["p"] = p
    if len(args) > 3 or set(given) - {"p", "dim", "keepdim", "dtype"} or not (isinstance(p, str) and p == "nuc"):
        return op(input, *args, **kwargs)  # another norm, or an `out=` / a positional dtype
    dim = given.get("dim")
    dims = list(range(input.dim())) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    return _onnx_linalg_matrix_norm(input, "nuc", dims, given.get("keepdim", False), dtype=given.get("dtype"))

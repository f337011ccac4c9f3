import torch


def _onnx_index_keepdim(op, *args, **kwargs):
    # torch.argmax / argmin with keepdim=True and no dim: the index into the flattened input, kept
    # as a tensor of the input's rank with every size 1 (`score.argmax(keepdim=True)`: [1, 1] of a
    # 2-D map). torch.onnx's translation keeps one dim only ([1]), silently reshaping what follows.
    # While exporting, the flattened input's index reshaped to that rank, which is what ATen
    # computes; other calls are the op. Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return op(*args, **kwargs)
    names = ("input", "dim", "keepdim")
    bound = dict(zip(names, args), **kwargs)
    if set(bound) - set(names) or bound.get("dim") is not None or not bound.get("keepdim") or "input" not in bound:
        return op(*args, **kwargs)
    flat = bound["input"].reshape(-1)
    return op(flat, 0).reshape([1] * bound["input"].dim())

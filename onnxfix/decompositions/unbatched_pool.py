import torch


def _onnx_unbatched_pool(op, *args, **kwargs):
    # A pooling of an unbatched input, (C, *spatial) (TAPIR's avg_pool3d of a (C, H, W, T) feature
    # grid): ATen takes it, the legacy exporter writes ONNX's pooling, which takes (N, C, *spatial),
    # on the tensor as it is, and onnxruntime refuses the model ("Attribute strides has incorrect
    # size"). While the legacy exporter traces, the input gets a batch of one and the result
    # (and indices, with return_indices) loses it again: the same op on the same values. Eager and
    # dynamo run the op.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():
        return op(*args, **kwargs)
    # avg_pool3d, max_pool2d, max_pool1d_with_indices (return_indices=True), adaptive_avg_pool2d, ...
    rank = getattr(op, "__name__", "").partition("pool")[2][:2]
    input = args[0] if args else kwargs.get("input")
    if not (isinstance(input, torch.Tensor) and rank in ("1d", "2d", "3d") and input.dim() == int(rank[0]) + 1):
        return op(*args, **kwargs)
    batched = (input.unsqueeze(0), *args[1:]) if args else ()
    rest = {k: (v.unsqueeze(0) if k == "input" else v) for k, v in kwargs.items()}
    out = op(*batched, **rest)
    return tuple(o.squeeze(0) for o in out) if isinstance(out, tuple) else out.squeeze(0)

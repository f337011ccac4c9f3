import torch


def _onnx_exponential(input, lambd=1.0):
    # input.exponential_(lambd): input filled with draws of rate lambd (gpt-fast's sampling without
    # a sync, `probs / torch.empty_like(probs).exponential_(1)`). The legacy exporter has no
    # symbolic for aten::exponential; while exporting there, the inverse of the distribution
    # function on uniform draws, -log(1 - u) / lambd with u from rand_like (U[0, 1), so the log
    # is finite), written into input. The same distribution; eager and dynamo keep the op.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return input.exponential_(lambd)
    # a float32 uniform draw of 0 gives 0, which ATen's (double-precision) draw all but never does:
    # the smallest normal number instead (`probs / q` stays finite)
    return input.copy_((-torch.log1p(-torch.rand_like(input)) / lambd).clamp_min(torch.finfo(input.dtype).tiny))

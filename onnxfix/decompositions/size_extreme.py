import torch


def _onnx_size_extreme(largest, *sizes):
    # max() (largest) / min() of tensor sizes. While the legacy exporter traces, sizes are 0-d
    # tensors and Python's max/min would compare them once, keeping the export-time winner as a
    # constant; their stack's max/min stays a graph value (0-d). Otherwise (eager, dynamo's symbolic
    # sizes) the builtin itself, bit for bit. One argument is an iterable of sizes (`x.shape[-2:]`).
    if len(sizes) == 1:
        sizes = tuple(sizes[0])
    if not torch.jit.is_tracing():
        return max(sizes) if largest else min(sizes)
    # one value each: a size traced as a 0-d tensor, or a one-element tensor the code passes where an
    # int is meant (sherpa-onnx's WeNet wrapper: `max(key_size - required_cache_size, 0)` with a
    # (1,)-shaped tensor, which Python's max takes and a stack of mixed shapes refuses)
    stacked = torch.stack([torch.as_tensor(size).reshape(()) for size in sizes])
    return stacked.max() if largest else stacked.min()

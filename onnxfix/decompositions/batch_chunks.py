import torch


def _onnx_batch_chunks(start, stop, step, count=None):
    # A loop over the batch in chunks of `step` rows (attention slicing, a VAE decoded a few
    # latents at a time to fit memory): `range(start, stop, step)` of chunk starts, or, with
    # `count`, `range(count)` of chunk numbers; each with the step. In eager exactly those. While
    # an exporter traces, one chunk, the whole batch: a `range` over a symbolic size makes
    # torch.export fix the size to the example's, and the legacy tracer unrolls the example's
    # chunks. The whole batch at once gives the rows the chunks gave when the body treats every
    # row on its own (the export's comparison with eager checks it).
    if torch.compiler.is_exporting() or torch.onnx.is_in_onnx_export():
        return ((start if count is None else 0, stop - start),)
    return ((i, step) for i in (range(start, stop, step) if count is None else range(count)))

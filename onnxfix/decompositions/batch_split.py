import torch


def _onnx_batch_split(x, split_size):
    # The batch split into parts of `split_size` rows to bound memory (diffusers' sliced VAE,
    # `torch.cat([decode(z) for z in z.split(1)])`). In eager exactly that split. While an
    # exporter traces, one part, the whole batch: the number of parts follows the batch, which
    # torch.export would fix to the example's and the legacy tracer unroll. The parts
    # concatenated again are the whole batch's rows when the body treats every row on its own
    # (the export's comparison with eager checks it).
    if torch.compiler.is_exporting() or torch.onnx.is_in_onnx_export():
        return (x,)
    return x.split(split_size)

import torch


def _onnx_batch_norm_stats(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
                           eps=1e-5):
    # F.batch_norm on the batch's own statistics with no running ones (training=True, running_mean
    # and running_var None: timm's NFNet, detectron2's BatchNormBatchStat in eval). The legacy
    # exporter cannot lower it with a dynamic size ("batch_size and channel_size must be
    # non-None"); while it exports, the statistics ATen computes: the mean and the biased variance
    # over every dim but the channels (in float32 for a half input, as ATen's CPU kernel), then the
    # affine map, rounded once to the input's dtype. Any other call runs the op. Eager and dynamo
    # keep the op.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training or running_mean is not None or running_var is not None:
        return torch.nn.functional.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    x = input.float() if input.dtype in (torch.float16, torch.bfloat16) else input
    dims = [0, *range(2, input.dim())]
    shape = [1, -1, *([1] * (input.dim() - 2))]
    mean = x.mean(dims, keepdim=True)
    out = (x - mean) / torch.sqrt((x - mean).square().mean(dims, keepdim=True) + eps)
    if weight is not None:
        out = out * weight.to(out.dtype).view(shape)
    if bias is not None:
        out = out + bias.to(out.dtype).view(shape)
    return out.to(input.dtype)

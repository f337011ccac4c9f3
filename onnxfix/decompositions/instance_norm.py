import torch


def _onnx_instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                        momentum=0.1, eps=1e-5):
    # An InstanceNorm layer built with track_running_stats=True, in eval: it normalises with the
    # running statistics (use_input_stats=False), which is batch_norm in eval, per channel. The
    # legacy exporter refuses instance_norm with running statistics for a dynamic batch
    # ("instance_norm training for unknown batch size"); it takes batch_norm. Every other call
    # runs torch's instance_norm. Eager and dynamo keep the op.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                                                 momentum, eps)
    if use_input_stats or running_mean is None or running_var is None:
        return torch.nn.functional.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                                                 momentum, eps)
    return torch.nn.functional.batch_norm(input, running_mean, running_var, weight, bias, False, 0.0, eps)

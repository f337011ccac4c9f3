import torch


def _onnx_rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    # F.rrelu in eval (nn.RReLU after .eval()): ATen's rrelu is leaky_relu with the mean slope
    # (lower + upper) / 2 when not training, the op the exporters translate (dynamo has no
    # translation of aten.rrelu_with_noise). Training draws random slopes: the op itself.
    if not torch.onnx.is_in_onnx_export() or training:
        return torch.nn.functional.rrelu(input, lower, upper, training, inplace)
    return torch.nn.functional.leaky_relu(input, (lower + upper) / 2, inplace)

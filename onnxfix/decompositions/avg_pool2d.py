import torch


def _onnx_avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                     divisor_override=None):
    # F.avg_pool2d with divisor_override through _onnx_avg_pool_divisor. Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.nn.functional.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                              divisor_override)
    return _onnx_avg_pool_divisor(torch.nn.functional.avg_pool2d, 2, input, kernel_size, stride, padding, ceil_mode,
                                  count_include_pad, divisor_override)

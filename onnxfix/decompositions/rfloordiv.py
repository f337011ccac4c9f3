import torch


def _onnx_rfloordiv(input, other):
    # `other // input` for a Python number `other` (Tensor.__rfloordiv__): torch.export records
    # aten.floor_divide(<number>, tensor), whose ONNX translation fails ("'float' object has no
    # attribute 'dtype'"). While exporting, the number becomes a tensor of the dtype the two
    # promote to (torch.result_type), floor-divided by the same kernel (rounding_mode="floor" is
    # what floor_divide runs): the same operand values, the same result. Eager keeps the operator.
    if not torch.onnx.is_in_onnx_export():
        return other // input
    if not isinstance(input, torch.Tensor):  # two Python numbers: the exporters take them as they are
        return other // input
    numerator = torch.full_like(input, other, dtype=torch.result_type(input, other))
    return torch.div(numerator, input, rounding_mode="floor")

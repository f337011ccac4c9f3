import torch


def _onnx_round_half_away(input):
    # Rounds half away from zero (decimal's ROUND_HALF_UP, C's round()), where torch.round rounds
    # half to even. Exact on every float: x - trunc(x) is computed without rounding, and adding
    # the sign to an integer-valued float is exact below 2**53 (above it every float is already
    # an integer, with a zero fraction). trunc is written as ceil below 0 and floor above (the
    # legacy exporter has no symbolic for aten::trunc).
    whole = torch.where(input < 0, torch.ceil(input), torch.floor(input))
    return whole + torch.sign(input) * ((input - whole).abs() >= 0.5)

import torch


def _onnx_fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min, quant_max):
    # Quantize and dequantize with ATen's arithmetic: q = clamp(round(x * (1 / scale)) + zero_point,
    # quant_min, quant_max) (round half to even, as nearbyint), then (q - zero_point) * scale. The
    # dynamo exporter fails on the op (torch.export cannot capture its tensor-qparams kernel).
    # Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min, quant_max)
    quantized = torch.clamp(torch.round(input * (1.0 / scale)) + zero_point, quant_min, quant_max)
    return (quantized - zero_point) * scale

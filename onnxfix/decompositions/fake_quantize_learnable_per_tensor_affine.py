import torch


def _onnx_fake_quantize_learnable_per_tensor_affine(input, scale, zero_point, quant_min, quant_max, grad_factor=1.0):
    # LSQ's learnable fake quantization (MQBench, torch.ao's _LearnableFakeQuantize): forward is
    # fake_quantize_per_tensor_affine with the zero point rounded and clamped into the range, as
    # ATen computes it (grad_factor scales gradients only). No exporter translates the op.
    # Eager keeps the op (requires _onnx_fake_quantize_per_tensor_affine).
    if not torch.onnx.is_in_onnx_export():
        return torch._fake_quantize_learnable_per_tensor_affine(input, scale, zero_point, quant_min, quant_max,
                                                                grad_factor)
    zero_point = torch.clamp(torch.round(zero_point), quant_min, quant_max)
    return _onnx_fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min, quant_max)

import torch


def _onnx_complex_abs(input):
    # `.abs()` of a complex tensor given as two real ones stacked last (torch.view_as_real's
    # layout, as the _onnx_fft* helpers return it). Outside export the input is a view of the
    # complex result, so view_as_complex gives that tensor back and its own abs runs (bit for
    # bit); while exporting, sqrt(re^2 + im^2) (not hypot: overflows in float32 beyond 1.8e19).
    if not torch.onnx.is_in_onnx_export():
        return torch.view_as_complex(input).abs()
    return input.square().sum(-1).sqrt()

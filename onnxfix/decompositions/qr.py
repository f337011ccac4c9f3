import torch


def _onnx_qr(input, some=True):
    # torch.qr, the old API, on _onnx_linalg_qr: some=True is mode 'reduced', some=False
    # 'complete' (torch.qr's documented equivalence with torch.linalg.qr).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.qr(input, some)
    Q, R = _onnx_linalg_qr(input, "reduced" if some else "complete")
    return torch.return_types.qr((Q, R))

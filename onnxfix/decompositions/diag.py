import torch


def _onnx_diag(input, diagonal=0):
    # A vector becomes the matrix with it on `diagonal`; a matrix gives that diagonal.
    if input.dim() == 1:
        return _onnx_diag_embed(input, diagonal)
    return torch.diagonal(input, diagonal).clone()

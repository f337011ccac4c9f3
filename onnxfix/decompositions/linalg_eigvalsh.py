import torch


def _onnx_linalg_eigvalsh(A, UPLO="L"):
    # The eigenvalues (ascending) of _onnx_linalg_eigh: cyclic Jacobi with a fixed number of
    # sweeps, unrolled over the static matrix size.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.linalg.eigvalsh(A, UPLO)
    return _onnx_linalg_eigh(A, UPLO).eigenvalues

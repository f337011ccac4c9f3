import torch


def _onnx_linalg_eigvalsh(A, UPLO="L"):
    # The eigenvalues (ascending) of _onnx_linalg_eigh: cyclic Jacobi with a fixed number of
    # sweeps, unrolled over the static matrix size.
    return _onnx_linalg_eigh(A, UPLO).eigenvalues

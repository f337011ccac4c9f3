import torch


def _onnx_linalg_matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    # torch.linalg.matrix_norm. ord=2 / -2 / 'nuc' (the largest / smallest / sum of the singular
    # values) use the one-sided Jacobi SVD (_onnx_linalg_svdvals), unrolled over the static
    # matrix size; 'fro', inf, -inf, 1 and -1 are sums and maxima, as in torch.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.linalg.matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    if dtype is not None:
        A = A.to(dtype)
    rank = A.dim()
    rows, cols = dim[0] % rank, dim[1] % rank
    X = A.movedim((rows, cols), (-2, -1))
    if ord == "fro":
        result = (X * X).sum((-2, -1)).sqrt()
    elif ord == "nuc":
        result = _onnx_linalg_svdvals(X).sum(-1)
    elif ord == 2:
        result = _onnx_linalg_svdvals(X)[..., 0]
    elif ord == -2:
        result = _onnx_linalg_svdvals(X)[..., -1]
    elif ord in (float("inf"), -float("inf")):
        sums = X.abs().sum(-1)  # row sums
        result = sums.amax(-1) if ord > 0 else sums.amin(-1)
    elif ord in (1, -1):
        sums = X.abs().sum(-2)  # column sums
        result = sums.amax(-1) if ord > 0 else sums.amin(-1)
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if keepdim:
        for axis in sorted((rows, cols)):
            result = result.unsqueeze(axis)
    return result

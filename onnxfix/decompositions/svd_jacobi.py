import torch


def _onnx_svd_jacobi(A):
    # One-sided (Hestenes) Jacobi SVD (requires _onnx_jacobi_rotation): rotate the columns of
    # X = A (or A^T when A is wide, so X has k = min(m, n) columns) until they are orthogonal;
    # each round recomputes the Gram matrix X^T X, which keeps the singular values accurate
    # relative to the largest one (no squaring of the matrix). Fixed sweeps, unrolled over the
    # static k, per k and dtype: the count measured to converge for k <= 24 (random, clustered,
    # graded and rank-deficient; bench/jacobi_sweeps.py), plus one. Returns (X, S, V, transposed)
    # with the singular values S descending, X = U_k * S (the left vectors scaled by S) and V
    # orthogonal (k x k): A = X V^T, or A^T = X V^T when transposed.
    transposed = A.shape[-2] < A.shape[-1]
    X = A.transpose(-2, -1) if transposed else A
    k = X.shape[-1]
    steps = torch.arange(k, device=A.device)
    V = (steps.unsqueeze(-1) == steps).to(A.dtype).expand(*X.shape[:-2], k, k)
    single = A.dtype in (torch.float32, torch.float16, torch.bfloat16)
    table = (1, 1, 2, 4, 4, 5, 6, 6, 7, 7, 7, 7, 8, 8, 9, 9, 9, 10, 10, 10, 10, 11) if single else (
        1, 1, 2, 5, 5, 7, 7, 7, 8, 9, 9, 9, 10, 10, 12, 12, 12, 14, 14, 14, 14, 15)
    sweeps = table[min(k, len(table) - 1)]
    for _ in range(sweeps):  # noqa: ONX603 - unrolled on purpose: a fixed number of sweeps
        for r in range(k + k % 2 - 1):  # noqa: ONX603 - one round per static pair set
            J = _onnx_jacobi_rotation(X.transpose(-2, -1) @ X, r)
            X = X @ J
            V = V @ J
    S, order = torch.sort((X * X).sum(-2).sqrt(), dim=-1, descending=True)
    X = torch.gather(X, -1, order.unsqueeze(-2).expand(X.shape))
    V = torch.gather(V, -1, order.unsqueeze(-2).expand(V.shape))
    return X, S, V, transposed

import torch


def _onnx_linalg_eigh(A, UPLO="L"):
    # Cyclic Jacobi eigenvalue algorithm (requires _onnx_jacobi_rotation), unrolled over the
    # static matrix size n with a fixed number of sweeps per n and dtype: the count measured to
    # converge (random, clustered, repeated, graded and rank-deficient spectra, n <= 24 in
    # float32, n <= 20 in float64; bench/jacobi_sweeps.py), plus one; the last entry of a table
    # serves every larger n. Like torch, only the
    # UPLO triangle of A is read. Eigenvalues ascending. Eigenvectors are unique only up to
    # sign (and to a rotation within repeated eigenvalues); LAPACK does not fix a sign, so here
    # each eigenvector's largest component is made positive: a column may be the negative of
    # torch's.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.linalg.eigh(A, UPLO)
    n = A.shape[-1]
    if isinstance(n, torch.SymInt):  # the sweeps below would unroll over its export-time value
        raise RuntimeError("_onnx_linalg_eigh needs a static matrix size: its Jacobi sweeps are unrolled over it")
    if n == 0:
        return torch.return_types.linalg_eigh((A.sum(-1), A.clone()))
    steps = torch.arange(n, device=A.device)
    lower = steps.unsqueeze(-1) >= steps  # (i, j): i >= j
    S = torch.where(lower if UPLO.upper() == "L" else lower.transpose(-2, -1), A, A.transpose(-2, -1))
    V = (steps.unsqueeze(-1) == steps).to(A.dtype).expand(S.shape)
    single = A.dtype in (torch.float32, torch.float16, torch.bfloat16)
    table = (1, 1, 2, 4, 5, 5, 6, 6, 7, 7, 8, 8, 8, 8, 8, 9) if single else (1, 1, 2, 5, 5, 11, 11, 11, 11, 12, 13, 13, 17)
    sweeps = table[min(n, len(table) - 1)]
    for _ in range(sweeps):  # noqa: ONX603 - unrolled on purpose: a fixed number of sweeps
        for k in range(n + n % 2 - 1):  # noqa: ONX603 - one round per static pair set
            J = _onnx_jacobi_rotation(S, k)
            S = J.transpose(-2, -1) @ S @ J
            V = V @ J
    values, order = torch.sort((S * (steps.unsqueeze(-1) == steps).to(S.dtype)).sum(-1), dim=-1)
    V = torch.gather(V, -1, order.unsqueeze(-2).expand(V.shape))
    largest = torch.gather(V, -2, V.abs().argmax(-2, keepdim=True))
    V = V * (1 - 2 * (largest < 0).to(V.dtype))
    return torch.return_types.linalg_eigh((values, V))

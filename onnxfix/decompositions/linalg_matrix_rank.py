import torch


def _onnx_linalg_matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    # torch.linalg.matrix_rank: the number of singular values (|eigenvalues| when hermitian)
    # above max(atol, rtol * largest), with torch's default rtol = max(m, n) * eps when neither
    # is given (rtol = 0 when only atol is given; the old `tol` is atol with rtol = 0). Singular
    # values by one-sided Jacobi (_onnx_linalg_svdvals), eigenvalues by _onnx_linalg_eigvalsh.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return (
            torch.linalg.matrix_rank(A, atol=atol, rtol=rtol, hermitian=hermitian)
            if tol is None
            else torch.linalg.matrix_rank(A, tol, hermitian)
        )
    if tol is not None:
        atol, rtol = tol, 0.0
    if hermitian:
        S = _onnx_linalg_eigvalsh(A).abs()
    else:
        S = _onnx_linalg_svdvals(A)
    if rtol is None:
        given = atol is not None and (not isinstance(atol, (int, float)) or atol > 0)
        rtol = 0.0 if given else max(A.shape[-2], A.shape[-1]) * torch.finfo(A.dtype).eps
    if atol is None:
        atol = 0.0
    largest = S.amax(-1, keepdim=True) if S.shape[-1] > 0 else torch.zeros_like(S[..., :1])
    rtol = rtol.unsqueeze(-1) if isinstance(rtol, torch.Tensor) else rtol
    atol = atol.unsqueeze(-1) if isinstance(atol, torch.Tensor) else atol
    threshold = torch.maximum(torch.as_tensor(atol, dtype=S.dtype, device=S.device), largest * rtol)
    return (S > threshold).sum(-1)

import torch


def _onnx_linalg_pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    # torch.linalg.pinv through the one-sided Jacobi SVD (_onnx_svd_jacobi), or the Jacobi
    # eigendecomposition when hermitian (_onnx_linalg_eigh, lower triangle only, as torch):
    # singular values (|eigenvalues|) at or below max(atol, rtol * largest) count as zero, with
    # torch's default rtol = max(m, n) * eps when neither is given (0 when only atol is given;
    # the old `rcond` is rtol).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return (
            torch.linalg.pinv(A, atol=atol, rtol=rtol, hermitian=hermitian)
            if rcond is None
            else torch.linalg.pinv(A, rcond, hermitian)
        )
    if rcond is not None:
        rtol = rcond
    if rtol is None:
        given = atol is not None and (not isinstance(atol, (int, float)) or atol > 0)
        rtol = 0.0 if given else max(A.shape[-2], A.shape[-1]) * torch.finfo(A.dtype).eps
    if atol is None:
        atol = 0.0
    if hermitian:
        values, V = _onnx_linalg_eigh(A)
        S = values.abs()
    else:
        X, S, V, transposed = _onnx_svd_jacobi(A)
    largest = S.amax(-1, keepdim=True) if S.shape[-1] > 0 else torch.zeros_like(S[..., :1])
    rtol = rtol.unsqueeze(-1) if isinstance(rtol, torch.Tensor) else rtol
    atol = atol.unsqueeze(-1) if isinstance(atol, torch.Tensor) else atol
    threshold = torch.maximum(torch.as_tensor(atol, dtype=S.dtype, device=S.device), largest * rtol)
    kept = S > threshold
    if hermitian:
        inverse = torch.where(kept, 1 / torch.where(kept, values, torch.ones_like(values)), torch.zeros_like(values))
        return (V * inverse.unsqueeze(-2)) @ V.transpose(-2, -1)
    # A = U S V^T with X = U S, so pinv(A) = V S^-1 U^T = V S^-2 X^T.
    inverse = torch.where(kept, 1 / torch.where(kept, S * S, torch.ones_like(S)), torch.zeros_like(S))
    P = (V * inverse.unsqueeze(-2)) @ X.transpose(-2, -1)
    return P.transpose(-2, -1) if transposed else P

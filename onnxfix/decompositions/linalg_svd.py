import torch


def _onnx_linalg_svd(A, full_matrices=True, *, driver=None):
    # (U, S, Vh) by one-sided Jacobi (_onnx_svd_jacobi), S descending. The left vectors of the
    # singular values above max(m, n) * eps * S_max are the scaled columns X / S; the others
    # (zero singular values, and the extra columns of full_matrices=True) are completed with an
    # orthonormal basis of the rest of the space: the eigenvectors of eigenvalue 1 of the
    # projector I - U U^T, which _onnx_linalg_eigh sorts last. Singular vectors are unique only
    # up to sign (and to a rotation within repeated singular values), so U and Vh may differ
    # from torch's by such a change; U @ diag(S) @ Vh is the same matrix.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.linalg.svd(A, full_matrices, driver=driver)
    X, S, V, transposed = _onnx_svd_jacobi(A)
    m, k = X.shape[-2], X.shape[-1]
    tol = S[..., :1] * (max(A.shape[-2], A.shape[-1]) * torch.finfo(A.dtype).eps)
    kept = S > tol  # (..., k): S is descending, so the kept ones come first
    U = torch.where(kept.unsqueeze(-2), X / torch.where(kept, S, torch.ones_like(S)).unsqueeze(-2), torch.zeros_like(X))
    width = m if full_matrices else k
    # the completion needs an eigh of an (m, m) projector, unrolled over a static m: with m dynamic
    # (a matrix with a dynamic number of rows), a reduced SVD keeps zero columns for the zero
    # singular values instead (U @ diag(S) @ Vh is the same matrix)
    if m > 0 and (full_matrices or not isinstance(m, torch.SymInt)):
        steps = torch.arange(m, device=A.device)
        eye = (steps.unsqueeze(-1) == steps).to(A.dtype)
        projector = eye - U @ U.transpose(-2, -1)
        # Projecting the eigenvectors once more removes what the fixed sweeps left of the kept
        # directions (the error squares: orthonormal to rounding).
        basis = projector @ _onnx_linalg_eigh(projector).eigenvectors[..., :width]
        U = torch.cat([U, torch.zeros_like(basis[..., k:])], -1)
        kept = torch.cat([kept, torch.zeros_like(basis[..., 0, k:], dtype=torch.bool)], -1)
        U = torch.where(kept.unsqueeze(-2), U, basis)
    if transposed:
        return torch.return_types.linalg_svd((V, S, U.transpose(-2, -1)))
    return torch.return_types.linalg_svd((U, S, V.transpose(-2, -1)))

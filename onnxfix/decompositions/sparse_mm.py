import torch


def _onnx_sparse_mm(mat1, mat2, reduce="sum"):
    # torch.sparse.mm of what _onnx_sparse_coo_tensor made dense while exporting: the dense
    # product (the exporters write torch.sparse.mm of dense tensors as aten::_sparse_mm, which
    # neither translates). Eager, and a sparse operand, keep the op.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.sparse.mm(mat1, mat2) if reduce == "sum" else torch.sparse.mm(mat1, mat2, reduce)
    if mat1.is_sparse or mat2.is_sparse or reduce != "sum":
        return torch.sparse.mm(mat1, mat2) if reduce == "sum" else torch.sparse.mm(mat1, mat2, reduce)
    return torch.mm(mat1, mat2)

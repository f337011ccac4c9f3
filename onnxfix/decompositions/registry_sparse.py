"""Sparse tensors while exporting: neither exporter has them; the helpers make the dense tensor
a sparse one stands for, and the sparse ops that take it dense (eager keeps every op). And
segment reductions over rows (CSR-style segments), which neither exporter translates."""

from __future__ import annotations

from onnxfix.decompositions.base import Decomposition, Proof

DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "segment_reduce", ("torch.segment_reduce",), True, (),
        ("https://github.com/tier4/autoware-ml/pull/24",),
        "1-D segments along dim 0 (lengths or offsets): each row's segment as a cumulative sum of ones "
        "scattered at the segment ends, then a scatter_reduce into tensors starting at `initial` or at the "
        "reduction's identity (include_self, as ATen: an empty segment keeps its start); mean as the sum over "
        "the length, NaN for an empty segment without `initial`. Batched segments (axis > 0) and `indices` are "
        "left to the op. Eager keeps the op (guarded helper): another accumulation order than ATen's loop.",
        rule="ONX515",
        proof=Proof(
            "torch.segment_reduce(a, 'max', lengths=n) + torch.segment_reduce(a, 'mean', lengths=n) + "
            "torch.segment_reduce(a, reduce='sum', offsets=torch.cat([n.new_zeros(1), n.cumsum(0)]), initial=0.5) + "
            "torch.segment_reduce(a, 'min', lengths=n, initial=2.0) + torch.segment_reduce(a, 'max', offsets=o).sum(0)",
            "_onnx_segment_reduce(a, 'max', lengths=n) + _onnx_segment_reduce(a, 'mean', lengths=n) + "
            "_onnx_segment_reduce(a, reduce='sum', offsets=torch.cat([n.new_zeros(1), n.cumsum(0)]), initial=0.5) + "
            "_onnx_segment_reduce(a, 'min', lengths=n, initial=2.0) + _onnx_segment_reduce(a, 'max', offsets=o).sum(0)",
            # offsets o leave the first and the last row out (ATen ignores rows outside them)
            "(randn(g, b, 3), torch.tensor([b - 1, 0, 1]), torch.tensor([1, b - 1]))",
            params="a, n, o", static=(1, 2), decomposition_tol=1e-6,  # float sums in another order than ATen's loop
        ),
    ),
    Decomposition(
        "sparse_coo_tensor", ("torch.sparse_coo_tensor",), False, (),
        ("https://github.com/pytorch/pytorch/issues/112487", "https://github.com/pytorch/pytorch/issues/71786"),
        "While exporting, the dense tensor: values summed at their row-major positions by one scatter_add "
        "(duplicates add up, as coalescing does). Products with it then sum the zeros too: the exported model "
        "matches eager to float rounding. Sparse-only methods (`._indices()`, `.coalesce()`) do not take it. "
        "Eager keeps the op (guarded helper). A size not given keeps the op.",
        rule="ONX515",
        proof=Proof(
            "torch.mm(torch.sparse_coo_tensor(i, c, (5, 6)), a)",
            "torch.mm(_onnx_sparse_coo_tensor(i, c, (5, 6)), a)",
            "(randn(g, 6, 3), ints(g, 0, 5, 2, 7), randn(g, 7))",
            params="a, i, c", static=(0, 1, 2), decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "sparse_float_tensor", ("torch.sparse.FloatTensor",), False, (),
        ("https://github.com/pytorch/pytorch/issues/71786",),
        "The legacy constructor as _onnx_sparse_coo_tensor of float32 values while exporting. Eager keeps it.",
        requires=("sparse_coo_tensor",), rule="ONX515",
        proof=Proof(
            "torch.mm(torch.sparse.FloatTensor(i, c, torch.Size([5, 6])), a)",
            "torch.mm(_onnx_sparse_float_tensor(i, c, torch.Size([5, 6])), a)",
            "(randn(g, 6, 3), ints(g, 0, 5, 2, 7), randn(g, 7))",
            params="a, i, c", static=(0, 1, 2), decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "sparse_sum", ("torch.sparse.sum",), False, (), ("https://github.com/pytorch/pytorch/issues/71786",),
        "Of what _onnx_sparse_coo_tensor made dense while exporting: the dense sum (the sparse result's "
        "`.to_dense()` is the same values). Eager, and a sparse input, keep the op.",
        # to_dense: a sparse sum is read with .to_dense(), which the legacy exporter refuses even dense
        requires=("sparse_coo_tensor", "to_dense"), rule="ONX515",
        proof=Proof(
            "torch.sparse.sum(torch.sparse_coo_tensor(i, c, (5, 6)), dim=1).to_dense() + a",
            "_onnx_to_dense(_onnx_sparse_sum(_onnx_sparse_coo_tensor(i, c, (5, 6)), dim=1)) + a",
            "(randn(g, 5), ints(g, 0, 5, 2, 7), randn(g, 7))",
            params="a, i, c", static=(0, 1, 2), decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "sparse_mm", ("torch.sparse.mm",), False, (), ("https://github.com/pytorch/pytorch/issues/71786",),
        "Of what _onnx_sparse_coo_tensor made dense while exporting: torch.mm (the exporters write "
        "torch.sparse.mm of dense tensors as aten::_sparse_mm, which neither translates). Eager, a sparse "
        "operand and another reduce keep the op.",
        requires=("sparse_coo_tensor",), rule="ONX515",
        proof=Proof(
            "torch.sparse.mm(torch.sparse_coo_tensor(i, c, (5, 6)), a)",
            "_onnx_sparse_mm(_onnx_sparse_coo_tensor(i, c, (5, 6)), a)",
            "(randn(g, 6, 3), ints(g, 0, 5, 2, 7), randn(g, 7))",
            params="a, i, c", static=(0, 1, 2), decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "to_dense", ("Tensor.to_dense",), False, (), ("https://github.com/pytorch/pytorch/issues/71786",),
        "Of what _onnx_sparse_coo_tensor made dense while exporting: the tensor itself (the legacy exporter "
        "has no symbolic for aten::to_dense, even of a dense tensor). Eager and a sparse tensor keep the op.",
        requires=("sparse_coo_tensor",), rule="ONX515",
        proof=Proof(
            "torch.sparse_coo_tensor(i, c, (5, 6)).to_dense() + a",
            "_onnx_to_dense(_onnx_sparse_coo_tensor(i, c, (5, 6))) + a",
            "(randn(g, 5, 6), ints(g, 0, 5, 2, 7), randn(g, 7))",
            params="a, i, c", static=(0, 1, 2),
        ),
    ),
)

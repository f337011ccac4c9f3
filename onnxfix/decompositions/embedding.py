import torch


def _onnx_embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                    sparse=False):
    # F.embedding with a max_norm (nn.Embedding(..., max_norm=1.0)): eager renormalises the looked-up
    # rows of the weight in place (those whose norm exceeds max_norm, scaled by
    # max_norm / (norm + 1e-7)), then gathers them. The legacy exporter drops the renormalisation:
    # the exported model gathers the weight as it was, right only for the rows eager had already
    # renormalised before the export (silently wrong for the others). Here the gathered rows are
    # scaled the same way, without writing the weight; a row eager renormalised before has a norm
    # below max_norm and stays as it is. Eager and dynamo keep the op.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)
    if max_norm is None:
        return torch.nn.functional.embedding(input, weight, padding_idx)
    rows = torch.nn.functional.embedding(input, weight, padding_idx)
    norms = torch.linalg.vector_norm(rows, norm_type, dim=-1, keepdim=True)
    scale = torch.where(norms > max_norm, max_norm / (norms + 1e-7), torch.ones_like(norms))
    return rows * scale

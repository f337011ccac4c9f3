import torch


def _onnx_embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                        mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                        padding_idx=None):
    # F.embedding_bag with a padding_idx, which the legacy exporter refuses ("embedding_bag with
    # padding_idx") or, with offsets, exports with the padding rows counted: the looked-up rows
    # (times per_sample_weights) of each bag summed by scatter_add with the padding entries
    # masked out; "mean" divides by the count of the others, "max" is a scatter amax over them,
    # and a bag with none gives zeros, as torch. Bags are the rows of a 2-D input, or the runs
    # between offsets of a 1-D one. Eager and dynamo keep the op (another summation order).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.embedding_bag(input, weight, offsets, max_norm, norm_type, scale_grad_by_freq, mode,
                                                 sparse, per_sample_weights, include_last_offset, padding_idx)
    if padding_idx is None or max_norm is not None or input.numel() == 0:  # legacy exports these (max_norm renormalises in place)
        return torch.nn.functional.embedding_bag(input, weight, offsets, max_norm, norm_type, scale_grad_by_freq, mode,
                                                 sparse, per_sample_weights, include_last_offset, padding_idx)
    padding = padding_idx % weight.shape[0]
    flat = input.reshape(-1)
    positions = torch.arange(flat.shape[0], device=input.device)
    if input.dim() == 2:
        bags, bag = input.shape[0], positions // input.shape[1]
    else:
        bags = offsets.shape[0] - (1 if include_last_offset else 0)
        bag = (positions.unsqueeze(1) >= offsets.unsqueeze(0)).sum(1) - 1  # the last offset at or before
    keep = (flat != padding).unsqueeze(1)
    bag = bag.clamp(max=bags - 1)  # include_last_offset: entries past the last offset join the last bag, as in torch
    rows = weight.index_select(0, flat)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1, 1)
    spread = bag.unsqueeze(1).expand(-1, weight.shape[1])
    count = rows.new_zeros(bags, 1).scatter_add(0, bag.unsqueeze(1), keep.to(rows.dtype))
    if mode == "max":
        filled = rows.masked_fill(~keep, float("-inf"))
        most = rows.new_full((bags, weight.shape[1]), float("-inf")).scatter_reduce(0, spread, filled, "amax")
        return torch.where(count > 0, most, torch.zeros_like(most))
    total = rows.new_zeros(bags, weight.shape[1]).scatter_add(0, spread, rows.masked_fill(~keep, 0))
    return total if mode == "sum" else total / count.clamp(min=1)

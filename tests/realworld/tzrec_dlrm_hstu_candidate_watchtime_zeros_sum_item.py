"""TorchEasyRec DLRM-HSTU (generative ranking) payload preprocessing at inference: the candidates' watchtime is
unknown, so `DlrmHSTU.preprocess` builds a zero placeholder `torch.zeros((total_candidates, 1))` with
`total_candidates = torch.sum(num_candidates).item()` and jagged-concatenates it after the user-history (UIH)
watchtime values. The "fix export" PR replaced the `.item()`-sized zeros with `torch.zeros_like(<candidate id
values>)`. The fbgemm `jagged_to_padded_dense` / `asynchronous_complete_cumsum` ops are replaced by small torch
stand-ins; `_concat_2D_jagged_jagged` is copied as the library wrote it.

Source: https://github.com/alibaba/TorchEasyRec/pull/237
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"uih_watchtime": {0: "uih_tokens"}, "uih_seq_lengths": {0: "batch"}, "num_candidates": {0: "batch"}}
BLIND = "domains-72"


def asynchronous_complete_cumsum(lengths):  # stand-in for torch.ops.fbgemm.asynchronous_complete_cumsum
    return torch.nn.functional.pad(torch.cumsum(lengths, dim=0), (1, 0))


def jagged_to_padded_dense(values, offsets, max_lengths, padding_value=0.0):  # stand-in for the fbgemm op
    offsets, max_len = offsets[0], max_lengths[0]
    pos = torch.arange(max_len, device=values.device).view(1, -1)
    valid = pos < (offsets[1:] - offsets[:-1]).view(-1, 1)
    idx = torch.where(valid, offsets[:-1].view(-1, 1) + pos, torch.zeros_like(pos))
    dense = values[idx]
    return torch.where(valid.unsqueeze(-1), dense, torch.full_like(dense, padding_value))


def _concat_2D_jagged_jagged(values_left, values_right, max_len_left: int, max_len_right: int,
                             offsets_left, offsets_right):
    max_seq_len = max_len_left + max_len_right
    lengths_left = offsets_left[1:] - offsets_left[:-1]
    lengths_right = offsets_right[1:] - offsets_right[:-1]
    padded_left = jagged_to_padded_dense(
        values=values_left, offsets=[offsets_left], max_lengths=[max_len_left], padding_value=0.0
    )
    padded_right = jagged_to_padded_dense(
        values=values_right, offsets=[offsets_right], max_lengths=[max_len_right], padding_value=0.0
    )
    concatted_dense = torch.cat([padded_left, padded_right], dim=1)
    mask = torch.arange(max_seq_len, device=offsets_left.device).view(1, -1)
    mask = torch.logical_or(
        mask < lengths_left.view(-1, 1),
        torch.logical_and(mask >= max_len_left, mask < max_len_left + lengths_right.view(-1, 1)),
    )
    return concatted_dense.flatten(0, 1)[mask.view(-1), :]


class DlrmHSTUWatchtimePayload(nn.Module):
    def __init__(self, max_uih_len=8, max_num_candidates=4, dim=16):
        super().__init__()
        self._is_inference = True
        self._max_uih_len = max_uih_len
        self._max_num_candidates = max_num_candidates
        self._watchtime_encoder = nn.Linear(1, dim)

    def forward(self, uih_watchtime, uih_seq_lengths, num_candidates):
        values_left = uih_watchtime
        if self._is_inference:
            total_candidates = torch.sum(num_candidates).item()
            values_right = torch.zeros(
                (total_candidates, 1),  # pyre-ignore
                dtype=values_left.dtype,
                device=values_left.device,
            )
        uih_offsets = asynchronous_complete_cumsum(uih_seq_lengths)
        candidate_offsets = asynchronous_complete_cumsum(num_candidates)
        watchtime = _concat_2D_jagged_jagged(
            values_left, values_right, self._max_uih_len, self._max_num_candidates, uih_offsets, candidate_offsets
        )
        return self._watchtime_encoder(torch.log1p(watchtime))


def make_model():
    return DlrmHSTUWatchtimePayload()


def _inputs(uih_lengths, num_candidates):
    uih_lengths = torch.tensor(uih_lengths)
    return (torch.rand(int(uih_lengths.sum()), 1) * 60.0, uih_lengths, torch.tensor(num_candidates))


def example_inputs():
    return _inputs([5, 3], [2, 1])


def other_inputs():
    return [_inputs([8, 2, 6], [4, 3, 2]), _inputs([7, 4, 1, 8], [1, 4, 4, 2])]


def probe_inputs():
    return other_inputs()

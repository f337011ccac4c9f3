"""TorchRL `GRUModule` in recurrent mode with the "pad" backend (recurrent policy over a [batch, time] rollout).
When `is_init` fires mid-row (`if ... and is_init[..., 1:].any():`) the rollout is cut into per-trajectory windows
(`_get_num_per_traj_init`, `_split_and_pad_sequence` with `max_seq_len = torch.max(splits)`), the GRU runs on a
packed sequence, and `_inv_pad_sequence` stitches the outputs back with `tensor[mask]`. The commit "Compile-friendly
pad backend for RNN reset rollouts" says this data-dependent glue (the `is_init.any()` gate, the padded shape and
the boolean-mask reconstruction) crashes torch.compile and moves it into eager islands; this is the code before it,
on plain tensors instead of a TensorDict.

Source: https://github.com/pytorch/rl/commit/2b31ed5d7543f5fe394b774515b832e041d85e7f
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"embed": {0: "batch", 1: "time"}, "is_init": {0: "batch", 1: "time"},
           "recurrent_state": {0: "batch", 1: "time"}}
BLIND = "domains-62"


def expand_right(tensor, shape):
    # tensordict.utils.expand_right
    tensor_expand = tensor
    while tensor_expand.ndimension() < len(shape):
        tensor_expand = tensor_expand.unsqueeze(-1)
    return tensor_expand.expand(shape)


def _flatten_batch(tensor, time_dim=-1):
    return tensor.flatten(0, time_dim)


def _get_num_per_traj(done):
    done = done.clone()
    done[..., -1] = True
    num_per_traj = torch.where(done.reshape(-1))[0] + 1
    num_per_traj[1:] = num_per_traj[1:] - num_per_traj[:-1]
    return num_per_traj


def _get_num_per_traj_init(is_init):
    """Like _get_num_per_traj, but with is_init signal."""
    done = torch.zeros_like(is_init)
    done[..., :-1][is_init[..., 1:]] = 1
    return _get_num_per_traj(done)


def _split_and_pad_sequence(tensor, splits, time_dim=-1):
    max_seq_len = torch.max(splits)
    shape = (len(splits), max_seq_len)

    # int16 supports length up to 32767
    dtype = (
        torch.int16
        if tensor.size(time_dim) < torch.iinfo(torch.int16).max
        else torch.int32
    )
    tensor = _flatten_batch(tensor, time_dim=time_dim)

    def _fill_tensor(tensor):
        arange = torch.arange(max_seq_len, device=tensor.device, dtype=dtype).unsqueeze(0)
        mask = arange < splits.to(tensor.device).unsqueeze(1)
        empty_tensor = torch.zeros(*shape, *tensor.shape[1:], dtype=tensor.dtype, device=tensor.device)
        mask_expand = expand_right(mask, (*mask.shape, *tensor.shape[1:]))
        # We need to use masked-scatter to accommodate vmap
        return torch.masked_scatter(empty_tensor, mask_expand, tensor.reshape(-1))

    return _fill_tensor(tensor)


def _inv_pad_sequence(tensor, splits, mask=None):
    if splits.numel() == 1:
        return tensor
    if mask is None:
        dtype = torch.int16 if tensor.shape[1] < torch.iinfo(torch.int16).max else torch.int32
        arange = torch.arange(tensor.shape[1], device=tensor.device, dtype=dtype).unsqueeze(0)
        mask = arange < splits.to(tensor.device).unsqueeze(1)
    return tensor[mask]


def _place_at_traj_end(h, splits, steps):
    h_padded = torch.zeros(h.shape[0], steps, *h.shape[1:], device=h.device, dtype=h.dtype)
    idx = (splits - 1).long().view(-1, 1, *([1] * (h.dim() - 1))).expand_as(h.unsqueeze(1))
    return h_padded.scatter(1, idx, h.unsqueeze(1))


class GRUModule(nn.Module):
    def __init__(self, input_size=8, hidden_size=16, num_layers=1):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, batch_first=True)
        self.recurrent_mode = True
        self.recurrent_backend = "pad"

    def forward(self, embed, is_init, recurrent_state):
        # embed [B, T, F], is_init [B, T, 1] (bool), recurrent_state [B, T, num_layers, H]
        shape = embed.shape[:2]
        is_init = is_init.squeeze(-1)
        value, hidden = embed, recurrent_state
        splits = None
        backend = self.recurrent_backend
        use_scan = self.recurrent_mode and backend == "scan"
        use_triton = self.recurrent_mode and backend == "triton"
        if (
            self.recurrent_mode
            and not use_scan
            and not use_triton
            and is_init[..., 1:].any()
        ):
            splits = _get_num_per_traj_init(is_init)
            value = _split_and_pad_sequence(value, splits, time_dim=1)
            hidden = _split_and_pad_sequence(hidden, splits, time_dim=1)
            is_init = _split_and_pad_sequence(is_init, splits, time_dim=1)

        batch, steps = value.shape[:2]
        val, hidden = self._gru(value, batch, steps, value.device, value.dtype, hidden, splits)
        if splits is not None:
            val = _inv_pad_sequence(val, splits).reshape(*shape, *val.shape[2:])
            hidden = _inv_pad_sequence(hidden, splits).reshape(*shape, *hidden.shape[2:])
        return val, hidden

    def _gru(self, input, batch, steps, device, dtype, hidden_in=None, splits=None):
        if hidden_in is None:
            hidden_in = torch.zeros(batch, steps, self.gru.num_layers, self.gru.hidden_size,
                                    device=device, dtype=dtype)
        # we only need the first hidden state
        _hidden_in = hidden_in[:, 0]
        hidden = _hidden_in.transpose(-3, -2).contiguous()

        if splits is None:
            y, hidden = self.gru(input, hidden)
        else:
            lengths = splits.detach().to(device="cpu", dtype=torch.long)
            packed = nn.utils.rnn.pack_padded_sequence(input, lengths, batch_first=True, enforce_sorted=False)
            packed_y, hidden = self.gru(packed, hidden)
            y, _ = nn.utils.rnn.pad_packed_sequence(packed_y, batch_first=True, total_length=steps)

        # dim 0 in hidden is num_layers, but that will conflict with tensordict
        hidden = hidden.transpose(0, 1)
        if splits is not None:
            hidden = _place_at_traj_end(hidden, splits, steps)
        else:
            hidden = torch.stack([torch.zeros_like(hidden) for _ in range(steps - 1)] + [hidden], 1)
        return y, hidden


def make_model():
    return GRUModule().eval()


def _rollout(batch, steps, resets):
    is_init = torch.zeros(batch, steps, 1, dtype=torch.bool)
    is_init[:, 0] = True
    for b, t in resets:   # episode boundaries inside the rollout
        is_init[b, t] = True
    return torch.randn(batch, steps, 8), is_init, torch.zeros(batch, steps, 1, 16)


def example_inputs():
    return _rollout(2, 6, [(0, 3), (1, 2)])


def other_inputs():
    return [_rollout(3, 9, [(0, 5), (2, 1), (2, 7)]), _rollout(4, 5, [])]


def probe_inputs():
    return other_inputs()

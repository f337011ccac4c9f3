"""NeMo RAD-TTS duration/attribute predictor (`ConvLSTMLinear` -> `BiLSTM`): before the RadTTS ONNX
export PR, `BiLSTM.forward` sorted the batch with a `@torch.jit.script` `sort_tensor` that builds the
inverse permutation in a Python loop over the batch (`for i in range(ids_sorted.shape[0]):
unsort_ids[ids_sorted[i]] = i`), packed with `pack_padded_sequence(..., lens.long().cpu())`, took the
hx batch size from `seq.batch_sizes[0]` under tracing, and unsorted with `ret[0][unsort_ids]`; the PR
replaces it ("To be ONNX-exportable, we need to sort here rather than while packing") with
`index_select` / `argsort`-based sort and unsort.

Source: https://github.com/NVIDIA/NeMo/pull/5880
"""
from typing import Tuple

import torch
from torch import Tensor, nn
from torch.nn import functional as F
from torch.nn.utils.rnn import PackedSequence

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"context": {0: "batch", 2: "time"}, "lens": {0: "batch"}}
BLIND = "domains-52"


def get_mask_from_lengths(lengths=None, x=None) -> torch.Tensor:
    if lengths is None:
        assert x is not None
        return torch.ones(x.shape[-1], dtype=torch.bool, device=x.device)
    else:
        if x is None:
            max_len = torch.max(lengths)
        else:
            max_len = x.shape[-1]
    ids = torch.arange(0, max_len, device=lengths.device, dtype=lengths.dtype)
    mask = ids < lengths.unsqueeze(1)
    return mask


@torch.jit.script
def sort_tensor(context: torch.Tensor, lens: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    lens_sorted, ids_sorted = torch.sort(lens, descending=True)
    unsort_ids = torch.zeros_like(ids_sorted)
    for i in range(ids_sorted.shape[0]):
        unsort_ids[ids_sorted[i]] = i
    context = context[ids_sorted]
    return context, lens_sorted, unsort_ids


class BiLSTM(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers=1):
        super().__init__()
        self.bilstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True, bidirectional=True)
        self.real_hidden_size: int = self.bilstm.proj_size if self.bilstm.proj_size > 0 else self.bilstm.hidden_size
        self.bilstm.flatten_parameters()

    def lstm_tensor(self, context: Tensor, lens: Tensor, enforce_sorted: bool = False) -> Tuple[Tensor, Tensor]:
        seq = nn.utils.rnn.pack_padded_sequence(
            context, lens.long().cpu(), batch_first=True, enforce_sorted=enforce_sorted
        )
        return self.lstm_sequence(seq)

    def lstm_sequence(self, seq: PackedSequence) -> Tuple[Tensor, Tensor]:
        if not (torch.jit.is_scripting() or torch.jit.is_tracing()):
            self.bilstm.flatten_parameters()
            ret, _ = self.bilstm(seq)
        else:
            # Calculate sizes and prepare views to our zero buffer to pass as hx
            max_batch_size = seq.batch_sizes[0]
            common_shape = (self.bilstm.num_layers * 2, max_batch_size)
            hx = (
                seq.data.new_zeros(*common_shape, self.real_hidden_size),
                seq.data.new_zeros(*common_shape, self.bilstm.hidden_size),
            )
            ret, _ = self.bilstm(seq, hx)
        return nn.utils.rnn.pad_packed_sequence(ret, batch_first=True)

    def forward(self, context: Tensor, lens: Tensor) -> Tensor:
        context, lens, unsort_ids = sort_tensor(context, lens)
        dtype = context.dtype
        ret = self.lstm_tensor(context.to(dtype=torch.float32), lens, enforce_sorted=True)
        return ret[0].to(dtype=dtype)[unsort_ids]


class ConvLSTMLinear(nn.Module):
    def __init__(self, in_dim=16, out_dim=1, n_layers=2, n_channels=32, kernel_size=3):
        super().__init__()
        self.bilstm = BiLSTM(n_channels, int(n_channels // 2), 1)
        self.convolutions = nn.ModuleList()
        self.dropout = nn.Dropout(p=0.1)
        for i in range(n_layers):
            self.convolutions.append(
                nn.Conv1d(in_dim if i == 0 else n_channels, n_channels, kernel_size,
                          padding=int((kernel_size - 1) / 2))
            )
        self.dense = nn.Linear(n_channels, out_dim)

    def forward(self, context: Tensor, lens: Tensor) -> Tensor:
        mask = get_mask_from_lengths(lens, context)
        mask = mask.to(dtype=context.dtype).unsqueeze(1)
        for conv in self.convolutions:
            context = self.dropout(F.relu(conv(context * mask)))
        context = context.transpose(1, 2)
        # Apply Bidirectional LSTM
        context = self.bilstm(context, lens)
        if self.dense is not None:
            context = self.dense(context).permute(0, 2, 1)
        return context


def make_model():
    return ConvLSTMLinear().eval()


def _inputs(b, t, lens):
    return (torch.randn(b, 16, t), torch.tensor(lens, dtype=torch.long))


def example_inputs():
    # the longest sequence fills the padded length (as in NeMo's RadTTS input_example)
    return _inputs(3, 20, [14, 20, 9])


def other_inputs():
    return [_inputs(4, 31, [31, 5, 22, 17]), _inputs(2, 12, [7, 12])]


def probe_inputs():
    return other_inputs()

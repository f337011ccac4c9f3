"""Phi-4-multimodal's speech conformer encoder (remote code, later ported to transformers) builds its
chunk-wise streaming attention mask inside forward: `seq_len = math.ceil(T / time_reduction)`, then
`chunk_start_idx = np.arange(0, seq_len, chunk_size)` and `adaptive_enc_mask(seq_len, chunk_start_idx, ...)`.
optimum-intel's Phi-4-multimodal export could not keep this in the graph: it splits the audio encoder,
exports only the embedding part and feeds the streaming mask (`audio_mask`) in as a precomputed input.

Source: https://github.com/huggingface/optimum-intel/pull/1201
"""
import math

import numpy as np
import torch
from torch import nn

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"audio_input": {0: "batch", 1: "frames"}}
BLIND = "domains-44"


def adaptive_enc_mask(x_len, chunk_start_idx, left_window=0, right_window=0):
    chunk_start_idx = torch.Tensor(chunk_start_idx).long()  # first idx of each chunk, such as [0,18,36,48].
    start_pad = torch.nn.functional.pad(chunk_start_idx, (1, 0))  # append 0 to the beginning, so it becomes [0, 0, 18, 36, 48]
    end_pad = torch.nn.functional.pad(chunk_start_idx, (0, 1), value=x_len)  # append x_len to the end, so it becomes [0,18,36,48, x_len]
    seq_range = torch.arange(0, x_len).unsqueeze(-1)  # seq_range size: [x_len, 1]
    idx = ((seq_range < end_pad) & (seq_range >= start_pad)).nonzero()[:, 1]  # idx size: [x_len]
    seq_range_expand = torch.arange(0, x_len).unsqueeze(0).expand(x_len, -1)  # seq_range_expand size [x_len, x_len]
    idx_left = idx - left_window
    idx_left[idx_left < 0] = 0
    boundary_left = start_pad[idx_left]
    mask_left = seq_range_expand >= boundary_left.unsqueeze(-1)
    idx_right = idx + right_window
    idx_right[idx_right > len(chunk_start_idx)] = len(chunk_start_idx)
    boundary_right = end_pad[idx_right]
    mask_right = seq_range_expand < boundary_right.unsqueeze(-1)
    return mask_left & mask_right


class ConvSubsampling(nn.Module):
    """Three stride-2 convolutions: time_reduction = 8."""

    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(input_size, hidden_size, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv1d(hidden_size, hidden_size, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv1d(hidden_size, hidden_size, 3, stride=2, padding=1),
        )

    def forward(self, x, masks):
        return self.conv(x.transpose(1, 2)).transpose(1, 2), masks


class Phi4MMAudioEncoder(nn.Module):
    def __init__(self, input_size=16, hidden_size=32, num_heads=4, time_reduction=8, chunk_size=6, left_chunk=2):
        super().__init__()
        self.time_reduction = time_reduction
        self.chunk_size = chunk_size
        self.left_chunk = left_chunk
        self.num_heads = num_heads
        self.embed = ConvSubsampling(input_size, hidden_size)
        self.attn = nn.MultiheadAttention(hidden_size, num_heads, batch_first=True)
        self.out = nn.Linear(hidden_size, hidden_size)

    def _streaming_mask(self, seq_len, batch_size, chunk_size, left_chunk):
        # Create mask matrix for streaming
        # S stores start index. if chunksize is 18, s is [0,18,36,....]
        chunk_start_idx = np.arange(0, seq_len, chunk_size)
        enc_streaming_mask = (
            adaptive_enc_mask(seq_len, chunk_start_idx, left_window=left_chunk)
            .unsqueeze(0)
            .expand([batch_size, -1, -1])
        )
        return enc_streaming_mask

    def forward_embeddings(self, hidden_states, masks):
        """Forwarding the inputs through the top embedding layers"""
        seq_len = math.ceil(hidden_states.shape[1] / self.time_reduction)
        if seq_len <= 0:
            raise ValueError(
                f"The sequence length after time reduction is invalid: {seq_len}. Your input feature is too short."
            )

        batch_size = hidden_states.shape[0]

        enc_streaming_mask = self._streaming_mask(seq_len, batch_size, self.chunk_size, self.left_chunk)
        enc_streaming_mask = enc_streaming_mask.to(hidden_states.device)

        hidden_states, masks = self.embed(hidden_states, masks)

        streaming_mask = enc_streaming_mask
        if streaming_mask is not None and masks is not None:
            hs_mask = masks & streaming_mask
        else:
            hs_mask = streaming_mask

        return hidden_states, hs_mask, masks

    def forward(self, audio_input):
        hidden_states, hs_mask, _ = self.forward_embeddings(audio_input, None)
        attn_mask = (~hs_mask).repeat_interleave(self.num_heads, dim=0)
        attn_out, _ = self.attn(hidden_states, hidden_states, hidden_states, attn_mask=attn_mask, need_weights=False)
        return self.out(hidden_states + attn_out)


def make_model():
    return Phi4MMAudioEncoder().eval()


def example_inputs():
    return (torch.randn(2, 100, 16),)


def other_inputs():
    return [(torch.randn(3, 160, 16),), (torch.randn(1, 57, 16),)]


def probe_inputs():
    return other_inputs()

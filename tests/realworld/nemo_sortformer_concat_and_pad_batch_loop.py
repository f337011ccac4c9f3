"""NeMo streaming Sortformer diarizer: `concat_and_pad` joins the speaker cache, FIFO queue and new chunk
embeddings with `sig_length = total_lengths.max().item()` and a per-batch Python loop slicing
`output[batch_idx, start_indices[batch_idx] : end_indices[batch_idx]] = emb[batch_idx, : length[batch_idx]]`;
the ONNX export fails on that slice ("Rank must be 0 or 1, not None ... Gather(%length, %batch_idx)").

Source: https://github.com/NVIDIA-NeMo/Speech/issues/15077
"""
from typing import List

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {
    "chunk": {0: "batch", 1: "chunk_len"},
    "chunk_lengths": {0: "batch"},
    "spkcache": {0: "batch", 1: "spkcache_len"},
    "spkcache_lengths": {0: "batch"},
    "fifo": {0: "batch", 1: "fifo_len"},
    "fifo_lengths": {0: "batch"},
}
BLIND = "domains-8"


class SortformerModules(nn.Module):
    def __init__(self, fc_d_model=32, n_spk=4):
        super().__init__()
        self.encoder_proj = nn.Linear(fc_d_model, fc_d_model)
        self.first_hidden_to_hidden = nn.Linear(fc_d_model, fc_d_model)
        self.single_hidden_to_spks = nn.Linear(fc_d_model, n_spk)
        self.dropout = nn.Dropout(0.5)

    def forward_speaker_sigmoids(self, hidden_out):
        hidden_out = self.dropout(F.relu(hidden_out))
        hidden_out = self.first_hidden_to_hidden(hidden_out)
        hidden_out = self.dropout(F.relu(hidden_out))
        spk_preds = self.single_hidden_to_spks(hidden_out)
        preds = F.sigmoid(spk_preds)
        return preds

    @staticmethod
    def concat_and_pad(embs: List[torch.Tensor], lengths: List[torch.Tensor]):
        device, dtype = embs[0].device, embs[0].dtype
        batch_size, emb_dim = embs[0].shape[0], embs[0].shape[2]

        total_lengths = torch.sum(torch.stack(lengths), dim=0)
        sig_length = total_lengths.max().item()

        output = torch.zeros(batch_size, sig_length, emb_dim, device=device, dtype=dtype)
        start_indices = torch.zeros(batch_size, dtype=torch.int64, device=device)

        for emb, length in zip(embs, lengths):
            end_indices = start_indices + length
            for batch_idx in range(batch_size):
                output[batch_idx, start_indices[batch_idx] : end_indices[batch_idx]] = emb[
                    batch_idx, : length[batch_idx]
                ]
            start_indices = end_indices

        return output, total_lengths

    def forward(self, chunk, chunk_lengths, spkcache, spkcache_lengths, fifo, fifo_lengths):
        chunk_fc_encoder_embs = self.encoder_proj(chunk)
        spkcache_fifo_chunk_fc_encoder_embs, spkcache_fifo_chunk_fc_encoder_lengths = self.concat_and_pad(
            [spkcache, fifo, chunk_fc_encoder_embs], [spkcache_lengths, fifo_lengths, chunk_lengths]
        )
        spkcache_fifo_chunk_preds = self.forward_speaker_sigmoids(spkcache_fifo_chunk_fc_encoder_embs)
        return spkcache_fifo_chunk_preds, spkcache_fifo_chunk_fc_encoder_lengths


def make_model():
    return SortformerModules().eval()


def _inputs(b, c, s, f, cl, sl, fl):
    return (
        torch.randn(b, c, 32), torch.tensor(cl),
        torch.randn(b, s, 32), torch.tensor(sl),
        torch.randn(b, f, 32), torch.tensor(fl),
    )


def example_inputs():
    return _inputs(1, 6, 8, 4, [6], [8], [4])


def other_inputs():
    return [
        _inputs(2, 9, 12, 5, [9, 7], [12, 10], [5, 3]),
        _inputs(3, 4, 5, 3, [4, 4, 2], [5, 0, 3], [3, 1, 0]),
    ]


def probe_inputs():
    return other_inputs()

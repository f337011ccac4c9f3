"""Alpamayo / Qwen3-VL style multimodal RoPE: `get_rope_index` builds the 3-axis (t, h, w) position ids per
sequence and, for the text before the image, does `if text_len.item() > 0: llm_pos_chunks.append(torch.arange(
text_len, ...).view(1, -1).expand(3, -1))`; torch.export fails on that data-dependent `.item()` branch and the
`arange` sized by a tensor value (the report: "this same .item() pattern is used in many places").
(Vision tower and LLM reduced to an embedding and the M-RoPE cos applied to it; one image per sequence.)

Source: https://github.com/pytorch/pytorch/issues/173915
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"input_ids": {1: "seq"}}
BLIND = "domains-27"


class RopeIndexModel(nn.Module):
    def __init__(self, vocab_size=64, hidden=24, grid_thw=(1, 4, 4), spatial_merge_size=2,
                 image_token_id=5, mrope_section=(2, 5, 5)):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, hidden)
        self.grid_thw = grid_thw
        self.spatial_merge_size = spatial_merge_size
        self.image_token_id = image_token_id
        self.mrope_section = list(mrope_section)
        inv_freq = 1.0 / (10000 ** (torch.arange(0, hidden, 2, dtype=torch.float) / hidden))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def get_rope_index(self, input_ids):
        device = input_ids.device
        B, S = input_ids.shape
        spatial_merge_size = self.spatial_merge_size
        t, h, w = self.grid_thw
        llm_grid_t, llm_grid_h, llm_grid_w = t, h // spatial_merge_size, w // spatial_merge_size
        num_image_tokens = llm_grid_t * llm_grid_h * llm_grid_w

        batch_pos = []
        for b in range(B):
            ids = input_ids[b]
            text_len = (ids == self.image_token_id).long().argmax()
            llm_pos_chunks = []
            if text_len.item() > 0:
                llm_pos_chunks.append(
                    torch.arange(text_len, device=device, dtype=torch.long)
                    .view(1, -1)
                    .expand(3, -1)
                )
            t_index = torch.arange(llm_grid_t, device=device).view(-1, 1).expand(-1, llm_grid_h * llm_grid_w).flatten()
            h_index = torch.arange(llm_grid_h, device=device).view(1, -1, 1).expand(llm_grid_t, -1, llm_grid_w).flatten()
            w_index = torch.arange(llm_grid_w, device=device).view(1, 1, -1).expand(llm_grid_t, llm_grid_h, -1).flatten()
            llm_pos_chunks.append(torch.stack([t_index, h_index, w_index]) + text_len)
            st_idx = text_len + max(llm_grid_t, llm_grid_h, llm_grid_w)
            rest_len = S - text_len - num_image_tokens
            if rest_len.item() > 0:
                llm_pos_chunks.append(
                    torch.arange(rest_len, device=device, dtype=torch.long)
                    .view(1, -1)
                    .expand(3, -1) + st_idx
                )
            batch_pos.append(torch.cat(llm_pos_chunks, dim=1))
        return torch.stack(batch_pos, dim=1)  # (3, B, S)

    def forward(self, input_ids):
        position_ids = self.get_rope_index(input_ids)
        freqs = position_ids[..., None].float() * self.inv_freq  # (3, B, S, D/2)
        freqs = torch.cat([chunk[i] for i, chunk in enumerate(freqs.split(self.mrope_section, dim=-1))], dim=-1)
        cos = torch.cat((freqs, freqs), dim=-1).cos()
        return self.embed_tokens(input_ids) * cos


def _ids(seq, image_starts):
    ids = torch.randint(10, 64, (len(image_starts), seq))
    for b, s in enumerate(image_starts):
        ids[b, s:s + 4] = 5
    return ids


def make_model():
    return RopeIndexModel().eval()


def example_inputs():
    return (_ids(16, [3, 6]),)


def other_inputs():
    return [(_ids(20, [9, 2]),), (_ids(11, [0, 5]),)]


def probe_inputs():
    return other_inputs()

"""Bamba (hybrid Mamba2/attention LM) as TensorRT-LLM AutoDeploy exports it with torch.export: the HF
`BambaModel._update_mamba_mask` drops the padding mask with `if cache_position[0] > 0 or (attention_mask is not
None and torch.all(attention_mask == 1)): mamba_mask = None`, a branch on tensor values; AutoDeploy's export
patch replaces `_update_mamba_mask` (returns None) "to disable the mask for export". Reduced to the embedding,
two mixer blocks (in_proj, causal depthwise conv, gate, out_proj) that apply the padding mask, and the norm.

Source: https://github.com/NVIDIA/TensorRT-LLM/blob/1f1d64f0eb8719c2c5a255f6b100c5b504098e82/tensorrt_llm/_torch/auto_deploy/models/patches/bamba.py
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}}
BLIND = "domains-52"


def apply_mask_to_padding_states(hidden_states, attention_mask):
    if attention_mask is not None and attention_mask.shape[1] > 1 and attention_mask.shape[0] > 1:
        dtype = hidden_states.dtype
        hidden_states = (hidden_states * attention_mask[:, :, None]).to(dtype)
    return hidden_states


class BambaMixer(nn.Module):
    def __init__(self, hidden_size=32, intermediate_size=64, conv_kernel=4):
        super().__init__()
        self.intermediate_size = intermediate_size
        self.in_proj = nn.Linear(hidden_size, intermediate_size * 2)
        self.conv1d = nn.Conv1d(intermediate_size, intermediate_size, kernel_size=conv_kernel,
                                groups=intermediate_size, padding=conv_kernel - 1)
        self.act = nn.SiLU()
        self.out_proj = nn.Linear(intermediate_size, hidden_size)

    def forward(self, input_states, attention_mask=None):
        batch_size, seq_len, _ = input_states.shape
        input_states = apply_mask_to_padding_states(input_states, attention_mask)
        projected_states = self.in_proj(input_states)
        gate, hidden_states = projected_states.split([self.intermediate_size, self.intermediate_size], dim=-1)
        hidden_states = self.act(self.conv1d(hidden_states.transpose(1, 2))[..., :seq_len].transpose(1, 2))
        hidden_states = apply_mask_to_padding_states(hidden_states, attention_mask)
        scan_output = hidden_states * self.act(gate)
        return self.out_proj(scan_output)


class BambaModel(nn.Module):
    def __init__(self, vocab_size=100, hidden_size=32, num_layers=2):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, hidden_size)
        self.layers = nn.ModuleList([BambaMixer(hidden_size) for _ in range(num_layers)])
        self.norm_f = nn.LayerNorm(hidden_size)

    def forward(self, input_ids, attention_mask):
        inputs_embeds = self.embed_tokens(input_ids)
        past_seen_tokens = 0
        cache_position = torch.arange(past_seen_tokens, past_seen_tokens + inputs_embeds.shape[1],
                                      device=inputs_embeds.device)
        mamba_mask = self._update_mamba_mask(attention_mask, cache_position)
        hidden_states = inputs_embeds
        for layer in self.layers:
            hidden_states = hidden_states + layer(hidden_states, attention_mask=mamba_mask)
        return self.norm_f(hidden_states)

    def _update_mamba_mask(self, attention_mask, cache_position):
        """
        No need for zeroing states when
            1. Cached forward
            2. Attending to all inputs
        """
        mamba_mask = attention_mask
        if cache_position[0] > 0 or (attention_mask is not None and torch.all(attention_mask == 1)):
            mamba_mask = None
        return mamba_mask


def _padded_mask(batch, length, pads):
    mask = torch.ones(batch, length, dtype=torch.long)
    for row, pad in enumerate(pads):
        mask[row, :pad] = 0
    return mask


def make_model():
    return BambaModel().eval()


def example_inputs():
    return (torch.randint(0, 100, (2, 12)), torch.ones(2, 12, dtype=torch.long))


def other_inputs():
    return [
        (torch.randint(0, 100, (3, 17)), _padded_mask(3, 17, [0, 5, 9])),
        (torch.randint(0, 100, (2, 7)), _padded_mask(2, 7, [3, 0])),
    ]


def probe_inputs():
    return other_inputs()

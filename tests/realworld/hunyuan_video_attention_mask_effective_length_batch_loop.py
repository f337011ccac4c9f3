"""Diffusers `HunyuanVideoTransformer3DModel.forward`: the joint (video latent + text) attention mask is built with
`for i in range(batch_size): attention_mask[i, : effective_sequence_length[i]] = True`, where the effective length is
`latent_sequence_length + encoder_attention_mask.sum(dim=1)`: a Python loop over the batch and a slice end taken from
tensor values. The PR rewrote it (arange >= length, masked_fill) because the loop breaks full-graph capture
(`torch.compile(fullgraph=True)` / export). One dual-stream block stands in for the transformer stack.

Source: https://github.com/huggingface/diffusers/pull/11457
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {
    "hidden_states": {0: "batch", 2: "frames", 3: "height", 4: "width"},
    "encoder_hidden_states": {0: "batch", 1: "text_len"},
    "encoder_attention_mask": {0: "batch", 1: "text_len"},
}
BLIND = "domains-33"


class HunyuanVideoPatchEmbed(nn.Module):
    def __init__(self, patch_size, in_chans, embed_dim):
        super().__init__()
        self.proj = nn.Conv3d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, hidden_states):
        hidden_states = self.proj(hidden_states)
        hidden_states = hidden_states.flatten(2).transpose(1, 2)  # BCFHW -> BNC
        return hidden_states


class JointAttentionBlock(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(dim, 3 * dim)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, hidden_states, encoder_hidden_states, attention_mask):
        latent_len = hidden_states.shape[1]
        x = torch.cat([hidden_states, encoder_hidden_states], dim=1)
        b, n, c = x.shape
        q, k, v = self.to_qkv(x).view(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        x = F.scaled_dot_product_attention(q, k, v, attn_mask=attention_mask)
        x = self.to_out(x.transpose(1, 2).reshape(b, n, c))
        return x[:, :latent_len], x[:, latent_len:]


class HunyuanVideoTransformer3DModel(nn.Module):
    def __init__(self, in_channels=4, text_dim=16, dim=32, heads=2, patch_size=2, patch_size_t=1):
        super().__init__()
        self.patch_size, self.patch_size_t = patch_size, patch_size_t
        self.x_embedder = HunyuanVideoPatchEmbed((patch_size_t, patch_size, patch_size), in_channels, dim)
        self.context_embedder = nn.Linear(text_dim, dim)
        self.transformer_blocks = nn.ModuleList([JointAttentionBlock(dim, heads)])
        self.proj_out = nn.Linear(dim, patch_size_t * patch_size * patch_size * in_channels)

    def forward(self, hidden_states, encoder_hidden_states, encoder_attention_mask):
        batch_size, num_channels, num_frames, height, width = hidden_states.shape
        p, p_t = self.patch_size, self.patch_size_t
        post_patch_num_frames = num_frames // p_t
        post_patch_height = height // p
        post_patch_width = width // p

        hidden_states = self.x_embedder(hidden_states)
        encoder_hidden_states = self.context_embedder(encoder_hidden_states)

        # 3. Attention mask preparation
        latent_sequence_length = hidden_states.shape[1]
        condition_sequence_length = encoder_hidden_states.shape[1]
        sequence_length = latent_sequence_length + condition_sequence_length
        attention_mask = torch.zeros(
            batch_size, sequence_length, device=hidden_states.device, dtype=torch.bool
        )  # [B, N]

        effective_condition_sequence_length = encoder_attention_mask.sum(dim=1, dtype=torch.int)  # [B,]
        effective_sequence_length = latent_sequence_length + effective_condition_sequence_length

        for i in range(batch_size):
            attention_mask[i, : effective_sequence_length[i]] = True
        # [B, 1, 1, N], for broadcasting across attention heads
        attention_mask = attention_mask.unsqueeze(1).unsqueeze(1)

        for block in self.transformer_blocks:
            hidden_states, encoder_hidden_states = block(hidden_states, encoder_hidden_states, attention_mask)

        hidden_states = self.proj_out(hidden_states)
        hidden_states = hidden_states.reshape(
            batch_size, post_patch_num_frames, post_patch_height, post_patch_width, -1, p_t, p, p
        )
        hidden_states = hidden_states.permute(0, 4, 1, 5, 2, 6, 3, 7)
        hidden_states = hidden_states.flatten(6, 7).flatten(4, 5).flatten(2, 3)
        return hidden_states


def make_model():
    return HunyuanVideoTransformer3DModel().eval()


def _inputs(batch, frames, height, width, text_len, valid):
    mask = torch.zeros(batch, text_len, dtype=torch.long)
    for i, n in enumerate(valid):
        mask[i, :n] = 1  # prompts padded on the right, as the pipeline's tokenizer does
    return (torch.randn(batch, 4, frames, height, width), torch.randn(batch, text_len, 16), mask)


def example_inputs():
    return _inputs(2, 3, 8, 8, 7, [7, 4])


def other_inputs():
    return [_inputs(3, 2, 6, 10, 9, [3, 9, 5]), _inputs(1, 5, 4, 4, 5, [2])]


def probe_inputs():
    return other_inputs()

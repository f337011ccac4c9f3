"""Hiera MAE (HieraForPreTraining backbone): `random_masking` argsorts `noise` into `bool_masked_pos`, the model keeps the
unmasked mask units with `hidden_states = hidden_states[positions]` and `.view(batch_size, -1, hidden_size)`, and the
mask-unit attention / `reroll` then divide that sequence length by window sizes and strides
(`seq_len // math.prod(strides)`). The transformers exporters skip HieraForPreTraining under dynamic shapes: the kept
count is data-dependent, so the unbacked length reaches a guard it cannot answer
(`GuardOnDataDependentSymNode: 416*((u0//416)) < 2`). (Decoder head cut; two tiny stages.)

Source: https://github.com/huggingface/transformers/blob/020acb33fe1d0b660f9a528de8f9d0b7c380fc17/tests/exporters/test_export.py
"""
import math

import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"pixel_values": {0: "batch"}, "noise": {0: "batch"}}
BLIND = "domains-54"


class HieraConfig:
    image_size = (16, 16)
    patch_size = (3, 3)
    patch_stride = (2, 2)
    patch_padding = (1, 1)
    num_channels = 3
    embed_dim = 8
    embed_dim_multiplier = 2.0
    depths = [1, 1]
    num_heads = [1, 2]
    query_stride = [2, 2]
    masked_unit_size = [4, 4]
    masked_unit_attention = [True, False]
    num_query_pool = 1
    mask_ratio = 0.5
    mlp_ratio = 4.0
    layer_norm_eps = 1e-6


class HieraPatchEmbeddings(nn.Module):
    def __init__(self, config, is_mae: bool = False):
        super().__init__()
        self.num_channels = config.num_channels
        self.tokens_spatial_shape = [i // s for i, s in zip(config.image_size, config.patch_stride)]
        self.mask_spatial_shape = [i // s for i, s in zip(self.tokens_spatial_shape, config.masked_unit_size)]
        self.mask_ratio = config.mask_ratio
        self.is_mae = is_mae
        self.projection = nn.Conv2d(
            self.num_channels,
            config.embed_dim,
            kernel_size=config.patch_size,
            stride=config.patch_stride,
            padding=config.patch_padding,
        )

    def masked_conv(self, pixel_values, bool_masked_pos=None):
        if bool_masked_pos is None:
            return self.projection(pixel_values)

        target_size = pixel_values.shape[2:]
        bool_masked_pos = bool_masked_pos.view(pixel_values.shape[0], 1, *self.mask_spatial_shape)
        bool_masked_pos = nn.functional.interpolate(bool_masked_pos.float(), size=target_size)
        return self.projection(pixel_values * bool_masked_pos)

    def random_masking(self, pixel_values, noise=None):
        batch_size = pixel_values.shape[0]
        num_windows = math.prod(self.mask_spatial_shape)
        len_keep = int(num_windows * (1 - self.mask_ratio))

        if noise is None:
            noise = torch.rand(batch_size, num_windows, device=pixel_values.device)

        ids_shuffle = torch.argsort(noise, dim=1)
        ids_restore = torch.argsort(ids_shuffle, dim=1).to(pixel_values.device)

        # Generate the binary bool_masked_pos: 1 is *keep*, 0 is *remove*
        bool_masked_pos = torch.zeros([batch_size, num_windows], device=pixel_values.device)
        bool_masked_pos[:, :len_keep] = 1
        bool_masked_pos = torch.gather(bool_masked_pos, dim=1, index=ids_restore).bool()

        return bool_masked_pos, ids_restore

    def forward(self, pixel_values, noise=None):
        (bool_masked_pos, ids_restore) = (
            self.random_masking(pixel_values, noise=noise) if self.is_mae else (None, None)
        )
        embeddings = self.masked_conv(pixel_values, bool_masked_pos)
        embeddings = embeddings.flatten(2).transpose(2, 1)
        return embeddings, bool_masked_pos, ids_restore


class HieraEmbeddings(nn.Module):
    def __init__(self, config, is_mae: bool = False):
        super().__init__()
        tokens_spatial_shape = [i // s for i, s in zip(config.image_size, config.patch_stride)]
        self.num_tokens = math.prod(tokens_spatial_shape)
        self.patch_embeddings = HieraPatchEmbeddings(config, is_mae=is_mae)
        self.position_embeddings = nn.Parameter(torch.randn(1, self.num_tokens, config.embed_dim) * 0.02)

    def forward(self, pixel_values, noise=None):
        embeddings, bool_masked_pos, ids_restore = self.patch_embeddings(pixel_values, noise=noise)
        embeddings = embeddings + self.position_embeddings
        return embeddings, bool_masked_pos, ids_restore


class HieraMaskUnitAttention(nn.Module):
    def __init__(self, hidden_size, hidden_size_output, num_heads, query_stride=1, window_size=0,
                 use_mask_unit_attn=False):
        super().__init__()
        self.num_heads = num_heads
        self.query_stride = query_stride
        self.hidden_size_output = hidden_size_output
        self.head_dim = hidden_size_output // num_heads
        self.scale = (self.head_dim) ** -0.5
        self.qkv = nn.Linear(hidden_size, 3 * hidden_size_output)
        self.proj = nn.Linear(hidden_size_output, hidden_size_output)
        self.window_size = window_size
        self.use_mask_unit_attn = use_mask_unit_attn

    def forward(self, hidden_states):
        batch_size, seq_len, _ = hidden_states.shape

        num_windows = 1
        if self.use_mask_unit_attn:
            num_windows = seq_len // (self.query_stride * self.window_size)

        qkv = self.qkv(hidden_states)
        qkv = qkv.reshape(batch_size, -1, num_windows, 3, self.num_heads, self.head_dim)
        qkv = qkv.permute(3, 0, 4, 2, 1, 5)
        query, key, value = qkv.unbind(0)

        if self.query_stride > 1:
            query = query.view(batch_size, self.num_heads, num_windows, self.query_stride, -1, self.head_dim)
            query = query.max(dim=3).values

        attn_weights = (query * self.scale) @ key.transpose(-1, -2)
        attn_weights = attn_weights.softmax(dim=-1)
        attn_output = attn_weights @ value
        attn_output = attn_output.transpose(1, 3).reshape(batch_size, -1, self.hidden_size_output)
        return self.proj(attn_output)


class HieraLayer(nn.Module):
    def __init__(self, config, hidden_size, hidden_size_output, num_heads, query_stride=1, window_size=0,
                 use_mask_unit_attn=False):
        super().__init__()
        self.hidden_size = hidden_size
        self.hidden_size_output = hidden_size_output
        self.query_stride = query_stride
        self.layernorm_before = nn.LayerNorm(hidden_size, eps=config.layer_norm_eps)
        self.attn = HieraMaskUnitAttention(hidden_size, hidden_size_output, num_heads, query_stride, window_size,
                                           use_mask_unit_attn)
        self.layernorm_after = nn.LayerNorm(hidden_size_output, eps=config.layer_norm_eps)
        self.mlp = nn.Sequential(
            nn.Linear(hidden_size_output, int(hidden_size_output * config.mlp_ratio)),
            nn.GELU(),
            nn.Linear(int(hidden_size_output * config.mlp_ratio), hidden_size_output),
        )
        if hidden_size != hidden_size_output:
            self.proj = nn.Linear(hidden_size, hidden_size_output)

    def forward(self, hidden_states):
        batch_size, seq_len, _ = hidden_states.shape
        hidden_states_norm = self.layernorm_before(hidden_states)
        if self.hidden_size != self.hidden_size_output:
            hidden_states = self.proj(hidden_states_norm)
            hidden_states = (
                hidden_states.view(batch_size, self.query_stride, -1, self.hidden_size_output).max(dim=1).values
            )
        hidden_states = hidden_states + self.attn(hidden_states_norm)
        residual = hidden_states
        hidden_states = self.layernorm_after(hidden_states)
        hidden_states = self.mlp(hidden_states)
        return residual + hidden_states


class HieraEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        total_depth = sum(config.depths)
        cumulative_depths = torch.tensor(config.depths).cumsum(0).tolist()
        query_pool_layer = cumulative_depths[: config.num_query_pool]
        query_strides = [math.prod(config.query_stride) if i in query_pool_layer else 1 for i in range(total_depth)]

        self.stages = nn.ModuleList()
        hidden_size = config.embed_dim
        stage_ends = [0] + cumulative_depths
        masked_unit_area = math.prod(config.masked_unit_size)
        query_stride_area = math.prod(config.query_stride)
        for idx_stage, depth in enumerate(config.depths):
            hidden_size_output = int(config.embed_dim * config.embed_dim_multiplier**idx_stage)
            previous_stage_used_masked_attention = config.masked_unit_attention[idx_stage - 1 if idx_stage > 0 else 0]
            strides = query_strides[stage_ends[idx_stage] : stage_ends[idx_stage + 1]]
            layers = nn.ModuleList(
                [
                    HieraLayer(
                        config,
                        hidden_size=hidden_size if i == 0 else hidden_size_output,
                        hidden_size_output=hidden_size_output,
                        num_heads=config.num_heads[idx_stage],
                        query_stride=strides[i],
                        window_size=int(masked_unit_area * query_stride_area**-idx_stage),
                        use_mask_unit_attn=config.masked_unit_attention[idx_stage]
                        or (previous_stage_used_masked_attention and i == 0),
                    )
                    for i in range(depth)
                ]
            )
            hidden_size = hidden_size_output
            self.stages.append(layers)

        stage_size = [i // s for i, s in zip(config.image_size, config.patch_stride)]
        unroll_schedule = [config.query_stride] * len(config.depths[:-1])
        self.schedule = {}
        for idx_stage in range(len(config.depths)):
            self.schedule[idx_stage] = unroll_schedule, stage_size
            if idx_stage < config.num_query_pool:
                stage_size = [i // s for i, s in zip(stage_size, config.query_stride)]
                unroll_schedule = unroll_schedule[1:]

    def reroll(self, hidden_states, stage_idx, bool_masked_pos=None):
        schedule, size = self.schedule[stage_idx]
        batch_size, seq_len, hidden_size = hidden_states.shape

        num_dim = len(size)
        mask_unit_shape = [1] * num_dim

        for strides in schedule:
            # Extract the current patch from seq_len
            hidden_states = hidden_states.view(
                batch_size, *strides, seq_len // math.prod(strides), *mask_unit_shape, hidden_size
            )
            hidden_states = hidden_states.permute(0, 3, 1, 4, 2, 5, 6)
            for i in range(num_dim):
                mask_unit_shape[i] *= strides[i]
            hidden_states = hidden_states.reshape(batch_size, -1, *mask_unit_shape, hidden_size)
            seq_len = hidden_states.shape[1]

        hidden_states = hidden_states.view(batch_size, seq_len, *mask_unit_shape, hidden_size)
        return hidden_states

    def forward(self, hidden_states, bool_masked_pos=None):
        reshaped_hidden_states = self.reroll(hidden_states, stage_idx=0, bool_masked_pos=bool_masked_pos)
        for stage in self.stages:
            for layer in stage:
                hidden_states = layer(hidden_states)
        return hidden_states, reshaped_hidden_states


def unroll(hidden_states, image_shape, patch_stride, schedule):
    batch_size, _, hidden_size = hidden_states.shape
    size = [i // s for i, s in zip(image_shape, patch_stride)]
    current_size = size
    hidden_states = hidden_states.view(*([batch_size] + current_size + [hidden_size]))

    for strides in schedule:
        current_size = [i // s for i, s in zip(current_size, strides)]
        new_shape = [item for pair in zip(current_size, strides) for item in pair]
        new_shape = [batch_size] + new_shape + [hidden_size]
        hidden_states = hidden_states.view(new_shape)
        num_dims = len(new_shape)
        permute = [0] + list(range(2, num_dims - 1, 2)) + list(range(1, num_dims - 1, 2)) + [num_dims - 1]
        hidden_states = hidden_states.permute(permute)
        hidden_states = hidden_states.flatten(0, len(strides))
        batch_size *= math.prod(strides)

    hidden_states = hidden_states.reshape(-1, math.prod(size), hidden_size)
    return hidden_states


class HieraMAEModel(nn.Module):
    def __init__(self, config=HieraConfig()):
        super().__init__()
        self.config = config
        self.embeddings = HieraEmbeddings(config, is_mae=True)
        self.encoder = HieraEncoder(config)
        self.unroll_schedule = [config.query_stride] * len(config.depths[:-1])

    def forward(self, pixel_values, noise):
        embedding_output, bool_masked_pos, ids_restore = self.embeddings(pixel_values, noise=noise)

        image_shape = (pixel_values.shape[-2], pixel_values.shape[-1])
        hidden_states = unroll(
            embedding_output,
            image_shape=image_shape,
            patch_stride=self.config.patch_stride,
            schedule=self.unroll_schedule,
        )

        # Discard masked tokens if bool_masked_pos is provided
        if bool_masked_pos is not None:
            mask_unit_area = math.prod(self.config.masked_unit_size)
            batch_size, _, hidden_size = hidden_states.shape
            positions = bool_masked_pos.unsqueeze(-1).tile(1, mask_unit_area, hidden_size)
            hidden_states = hidden_states[positions]
            hidden_states = hidden_states.view(batch_size, -1, hidden_size)

        sequence_output, reshaped_hidden_states = self.encoder(hidden_states, bool_masked_pos=bool_masked_pos)
        return sequence_output, reshaped_hidden_states, ids_restore


def make_model():
    return HieraMAEModel().eval()


def example_inputs():
    return (torch.randn(2, 3, 16, 16), torch.rand(2, 4))


def other_inputs():
    return [(torch.randn(3, 3, 16, 16), torch.rand(3, 4)), (torch.randn(5, 3, 16, 16), torch.rand(5, 4))]


def probe_inputs():
    return other_inputs()

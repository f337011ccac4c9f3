"""VideoMAEForPreTraining (transformers): the visible/masked tokens and position embeddings are picked with
`x[~bool_masked_pos].reshape(batch_size, -1, num_channels)`, the decoder slices `hidden_states[:, -return_token_num:]`
behind `if return_token_num > 0` with `return_token_num = pos_emb_mask.shape[1]`, and forward always builds the
pixel targets `videos_patch[bool_masked_pos]` and the MSE loss; transformers' export test skips the model because it
"computes loss even when `return_loss=False`, hitting a data-dependent guard in `mse_loss`".

Source: https://github.com/huggingface/transformers/blob/c1161f4af4531c1c4164fec7f50e76e671dfe724/tests/exporters/test_export.py
"""
import numpy as np
import torch
from torch import nn
from torch.nn import MSELoss

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"pixel_values": {0: "batch"}, "bool_masked_pos": {0: "batch"}}
BLIND = "domains-54"

IMAGENET_DEFAULT_MEAN = [0.485, 0.456, 0.406]
IMAGENET_DEFAULT_STD = [0.229, 0.224, 0.225]


class VideoMAEConfig:
    image_size = 8
    patch_size = 4
    num_channels = 3
    num_frames = 4
    tubelet_size = 2
    hidden_size = 16
    num_attention_heads = 2
    decoder_hidden_size = 8
    decoder_num_attention_heads = 2
    norm_pix_loss = True


def get_sinusoid_encoding_table(n_position, d_hid):
    def get_position_angle_vec(position):
        return [position / np.power(10000, 2 * (hid_j // 2) / d_hid) for hid_j in range(d_hid)]

    sinusoid_table = np.array([get_position_angle_vec(pos_i) for pos_i in range(n_position)])
    sinusoid_table[:, 0::2] = np.sin(sinusoid_table[:, 0::2])  # dim 2i
    sinusoid_table[:, 1::2] = np.cos(sinusoid_table[:, 1::2])  # dim 2i+1
    return torch.FloatTensor(sinusoid_table).unsqueeze(0)


class VideoMAESelfAttention(nn.Module):
    def __init__(self, hidden_size, num_heads):
        super().__init__()
        self.num_attention_heads = num_heads
        self.attention_head_size = hidden_size // num_heads
        self.scaling = self.attention_head_size**-0.5
        self.query = nn.Linear(hidden_size, hidden_size)
        self.key = nn.Linear(hidden_size, hidden_size)
        self.value = nn.Linear(hidden_size, hidden_size)
        self.dense = nn.Linear(hidden_size, hidden_size)

    def forward(self, hidden_states):
        batch_size, seq_length, _ = hidden_states.shape
        key_layer = self.key(hidden_states).view(batch_size, -1, self.num_attention_heads, self.attention_head_size).transpose(1, 2)
        value_layer = self.value(hidden_states).view(batch_size, -1, self.num_attention_heads, self.attention_head_size).transpose(1, 2)
        query_layer = self.query(hidden_states).view(batch_size, -1, self.num_attention_heads, self.attention_head_size).transpose(1, 2)
        attn_weights = torch.matmul(query_layer, key_layer.transpose(-1, -2)) * self.scaling
        attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_layer.dtype)
        context_layer = torch.matmul(attn_weights, value_layer).transpose(1, 2).contiguous()
        context_layer = context_layer.reshape(context_layer.size()[:-2] + (self.num_attention_heads * self.attention_head_size,))
        return self.dense(context_layer)


class VideoMAELayer(nn.Module):
    def __init__(self, hidden_size, num_heads):
        super().__init__()
        self.layernorm_before = nn.LayerNorm(hidden_size)
        self.attention = VideoMAESelfAttention(hidden_size, num_heads)
        self.layernorm_after = nn.LayerNorm(hidden_size)
        self.intermediate = nn.Sequential(nn.Linear(hidden_size, 2 * hidden_size), nn.GELU())
        self.output = nn.Linear(2 * hidden_size, hidden_size)

    def forward(self, hidden_states):
        attention_output = self.attention(self.layernorm_before(hidden_states))
        # first residual connection
        hidden_states = attention_output + hidden_states
        # in VideoMAE, layernorm is also applied after self-attention
        layer_output = self.intermediate(self.layernorm_after(hidden_states))
        # second residual connection is done here
        return self.output(layer_output) + hidden_states


class VideoMAEEmbeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.tubelet_size = config.tubelet_size
        self.projection = nn.Conv3d(
            config.num_channels, config.hidden_size,
            kernel_size=(config.tubelet_size, config.patch_size, config.patch_size),
            stride=(config.tubelet_size, config.patch_size, config.patch_size),
        )
        self.num_patches = (config.image_size // config.patch_size) ** 2 * (config.num_frames // config.tubelet_size)
        self.position_embeddings = get_sinusoid_encoding_table(self.num_patches, config.hidden_size)

    def forward(self, pixel_values, bool_masked_pos):
        pixel_values = pixel_values.permute(0, 2, 1, 3, 4)
        embeddings = self.projection(pixel_values).flatten(2).transpose(1, 2)
        embeddings = embeddings + self.position_embeddings.detach().type_as(embeddings).to(
            device=embeddings.device, copy=True
        )
        # only keep visible patches
        # ~bool_masked_pos means visible
        if bool_masked_pos is not None:
            batch_size, _, num_channels = embeddings.shape
            embeddings = embeddings[~bool_masked_pos]
            embeddings = embeddings.reshape(batch_size, -1, num_channels)
        return embeddings


class VideoMAEDecoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        decoder_num_labels = config.num_channels * config.tubelet_size * config.patch_size**2
        self.decoder_layers = nn.ModuleList([VideoMAELayer(config.decoder_hidden_size, config.decoder_num_attention_heads)])
        self.norm = nn.LayerNorm(config.decoder_hidden_size)
        self.head = nn.Linear(config.decoder_hidden_size, decoder_num_labels)

    def forward(self, hidden_states: torch.Tensor, return_token_num: int):
        for layer_module in self.decoder_layers:
            hidden_states = layer_module(hidden_states)
        if return_token_num > 0:
            hidden_states = hidden_states[:, -return_token_num:]
        hidden_states = self.norm(hidden_states)
        return self.head(hidden_states)


class VideoMAEForPreTraining(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embeddings = VideoMAEEmbeddings(config)
        self.encoder = nn.ModuleList([VideoMAELayer(config.hidden_size, config.num_attention_heads)])
        self.encoder_to_decoder = nn.Linear(config.hidden_size, config.decoder_hidden_size, bias=False)
        self.mask_token = nn.Parameter(torch.zeros(1, 1, config.decoder_hidden_size))
        self.position_embeddings = get_sinusoid_encoding_table(self.embeddings.num_patches, config.decoder_hidden_size)
        self.decoder = VideoMAEDecoder(config)

    def forward(self, pixel_values: torch.FloatTensor, bool_masked_pos: torch.BoolTensor):
        sequence_output = self.embeddings(pixel_values, bool_masked_pos)
        for layer in self.encoder:
            sequence_output = layer(sequence_output)
        sequence_output = self.encoder_to_decoder(sequence_output)

        # [batch_size, num_visible_patches, decoder_hidden_size]
        batch_size, _, num_channels = sequence_output.shape

        # we don't unshuffle the correct visible token order, but shuffle the position embeddings accordingly.
        if bool_masked_pos is None:
            raise ValueError("One must provided a boolean mask ")

        expanded_position_embeddings = self.position_embeddings.expand(batch_size, -1, -1).type_as(pixel_values)
        expanded_position_embeddings = expanded_position_embeddings.detach().to(device=pixel_values.device, copy=True)
        pos_emb_visible = expanded_position_embeddings[~bool_masked_pos].reshape(batch_size, -1, num_channels)
        pos_emb_mask = expanded_position_embeddings[bool_masked_pos].reshape(batch_size, -1, num_channels)

        # [batch_size, num_patches, decoder_hidden_size]
        x_full = torch.cat([sequence_output + pos_emb_visible, self.mask_token + pos_emb_mask], dim=1)

        # [batch_size, num_masked_patches, num_channels * patch_size * patch_size]
        logits = self.decoder(x_full, pos_emb_mask.shape[1])

        loss = None
        with torch.no_grad():
            # first, unnormalize the frames
            device = pixel_values.device
            dtype = pixel_values.dtype
            mean = torch.as_tensor(IMAGENET_DEFAULT_MEAN).to(device=device, dtype=dtype)[None, None, :, None, None]
            std = torch.as_tensor(IMAGENET_DEFAULT_STD).to(device=device, dtype=dtype)[None, None, :, None, None]
            frames = pixel_values * std + mean  # in [0, 1]

            batch_size, time, num_channels, height, width = frames.shape
            tubelet_size, patch_size = self.config.tubelet_size, self.config.patch_size
            frames = frames.view(
                batch_size, time // tubelet_size, tubelet_size, num_channels,
                height // patch_size, patch_size, width // patch_size, patch_size,
            )
            frames = frames.permute(0, 1, 4, 6, 2, 5, 7, 3).contiguous()
            frames = frames.view(
                batch_size,
                time // tubelet_size * height // patch_size * width // patch_size,
                tubelet_size * patch_size * patch_size,
                num_channels,
            )
            frames_norm = (frames - frames.mean(dim=-2, keepdim=True)) / (
                frames.var(dim=-2, unbiased=True, keepdim=True).sqrt() + 1e-6
            )
            videos_patch = frames_norm.view(
                batch_size,
                time // tubelet_size * height // patch_size * width // patch_size,
                tubelet_size * patch_size * patch_size * num_channels,
            )

            batch_size, _, num_channels = videos_patch.shape
            labels = videos_patch[bool_masked_pos].reshape(batch_size, -1, num_channels)

        loss_fct = MSELoss()
        loss = loss_fct(logits, labels)
        return loss, logits


def make_model():
    return VideoMAEForPreTraining(VideoMAEConfig()).eval()


def _inputs(batch, num_masked, seed):
    g = torch.Generator().manual_seed(seed)
    # each video in the batch has the same number of masked patches (8 patches per video here)
    bool_masked_pos = torch.stack([torch.randperm(8, generator=g) < num_masked for _ in range(batch)])
    return (torch.randn(batch, 4, 3, 8, 8, generator=g), bool_masked_pos)


def example_inputs():
    return _inputs(2, 6, 0)


def other_inputs():
    return [_inputs(3, 4, 1), _inputs(1, 7, 2)]


def probe_inputs():
    return other_inputs()

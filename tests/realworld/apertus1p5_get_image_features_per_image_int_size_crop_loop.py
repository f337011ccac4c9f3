"""Apertus 1.5 (Emu3.5 IBQ vision tokenizer) embeds images by looping over the batch, cropping each padded image
to its true size with `image[None, :, : int(size[0]), : int(size[1])]` from the `image_sizes` tensor, encoding it
alone, adding an end-of-line column of BPE ids, and splitting the embeddings with Python sizes computed from
`image_sizes`; the model test sets `test_torch_exportable = False` for this "data-dependent control flow in the
vision/segmentation head" (and the "per-image ... tokenizer loops").

Source: https://github.com/huggingface/transformers/blob/153e70376b15f8ed84080c5c1b51e8482078adbe/tests/models/apertus1p5/test_modeling_apertus1p5.py
"""
from functools import cached_property

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"pixel_values": {0: "num_images", 2: "height", 3: "width"}, "image_sizes": {0: "num_images"}}
BLIND = "domains-55"

CODEBOOK_SIZE = 64


class Apertus1p5VQVAEResnetBlock(nn.Module):
    def __init__(self, in_channels, out_channels=None):
        super().__init__()
        self.in_channels = in_channels
        out_channels = in_channels if out_channels is None else out_channels
        self.out_channels = out_channels
        self.norm1 = nn.GroupNorm(num_groups=32, num_channels=in_channels, eps=1e-6, affine=True)
        self.conv1 = nn.Conv2d(in_channels, out_channels, kernel_size=3, stride=1, padding=1)
        self.norm2 = nn.GroupNorm(num_groups=32, num_channels=out_channels, eps=1e-6, affine=True)
        self.conv2 = nn.Conv2d(out_channels, out_channels, kernel_size=3, stride=1, padding=1)

    def forward(self, hidden_states):
        residual = hidden_states
        hidden_states = self.norm1(hidden_states)
        hidden_states = hidden_states * torch.sigmoid(hidden_states)
        hidden_states = self.conv1(hidden_states)
        hidden_states = self.norm2(hidden_states)
        hidden_states = hidden_states * torch.sigmoid(hidden_states)
        hidden_states = self.conv2(hidden_states)
        return residual + hidden_states


class Apertus1p5VQVAEAttnBlock(nn.Module):
    """Single-head self-attention over spatial positions with 1x1 convolutions."""

    def __init__(self, in_channels):
        super().__init__()
        self.norm = nn.GroupNorm(num_groups=32, num_channels=in_channels, eps=1e-6, affine=True)
        self.q = nn.Conv2d(in_channels, in_channels, kernel_size=1)
        self.k = nn.Conv2d(in_channels, in_channels, kernel_size=1)
        self.v = nn.Conv2d(in_channels, in_channels, kernel_size=1)
        self.proj_out = nn.Conv2d(in_channels, in_channels, kernel_size=1)

    def forward(self, hidden_states):
        residual = hidden_states
        hidden_states = self.norm(hidden_states)
        query = self.q(hidden_states)
        key = self.k(hidden_states)
        value = self.v(hidden_states)

        batch_size, channels, height, width = query.shape
        query = query.reshape(batch_size, channels, height * width).permute(0, 2, 1)
        key = key.reshape(batch_size, channels, height * width)
        attn_weights = torch.bmm(query, key) * channels**-0.5
        attn_weights = F.softmax(attn_weights, dim=2)

        value = value.reshape(batch_size, channels, height * width)
        hidden_states = torch.bmm(value, attn_weights.permute(0, 2, 1))
        hidden_states = hidden_states.reshape(batch_size, channels, height, width)
        return residual + self.proj_out(hidden_states)


class Apertus1p5VQVAEDownsample(nn.Module):
    def __init__(self, in_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, in_channels, kernel_size=3, stride=2, padding=0)

    def forward(self, hidden_states):
        # asymmetric right/bottom padding, as in the original VQGAN-style tokenizer
        hidden_states = F.pad(hidden_states, (0, 1, 0, 1), mode="constant", value=0)
        return self.conv(hidden_states)


class Apertus1p5VQVAE(nn.Module):
    """Encode-only IBQ tokenizer: 16x downsampling encoder, global mid attention, argmax codebook lookup."""

    def __init__(self, base_channels=64, num_resolutions=5, latent_channels=16, embed_dim=16):
        super().__init__()
        self.conv_in = nn.Conv2d(3, base_channels, kernel_size=3, stride=1, padding=1)
        self.blocks = nn.ModuleList([Apertus1p5VQVAEResnetBlock(base_channels) for _ in range(num_resolutions)])
        self.downsamples = nn.ModuleList(
            [Apertus1p5VQVAEDownsample(base_channels) for _ in range(num_resolutions - 1)]
        )
        self.mid_attn = Apertus1p5VQVAEAttnBlock(base_channels)
        self.conv_out = nn.Conv2d(base_channels, latent_channels, kernel_size=3, stride=1, padding=1)
        self.quant_conv = nn.Conv2d(latent_channels, embed_dim, kernel_size=1)
        self.embedding = nn.Embedding(CODEBOOK_SIZE, embed_dim)
        self.vision_spatial_factor = 2 ** (num_resolutions - 1)

    def encode(self, pixel_values):
        hidden_states = self.conv_in(pixel_values)
        for i, block in enumerate(self.blocks):
            hidden_states = block(hidden_states)
            if i < len(self.downsamples):
                hidden_states = self.downsamples[i](hidden_states)
        hidden_states = self.mid_attn(hidden_states)
        hidden_states = self.quant_conv(self.conv_out(hidden_states))
        logits = torch.einsum("bdhw,nd->bnhw", hidden_states, self.embedding.weight)
        return logits.argmax(dim=1)  # (batch_size, height, width)


class Apertus1p5ImageVocabularyMapping:
    def __init__(self, vocab_map):
        self.vocab_map = vocab_map
        self.eol_token_id = vocab_map.get("<|extra_200|>")
        self.image_token_id = vocab_map.get("<image>")

    @cached_property
    def image_tokens_str(self):
        return sorted([name for name, val in self.vocab_map.items() if name.startswith("<|visual token")])

    @cached_property
    def img2bpe(self):
        return {int(token[-8:-2]): self.vocab_map[token] for token in self.image_tokens_str}

    @cached_property
    def img2bpe_mapping_tensor(self):
        mapping = torch.zeros(max(self.img2bpe.keys()) + 1, dtype=torch.int)
        for k, v in self.img2bpe.items():
            mapping[k] = v
        return mapping

    def convert_img2bpe(self, img_batch):
        device = img_batch.device
        eol_row = torch.ones((img_batch.shape[0], 1), dtype=torch.int) * self.eol_token_id
        img_tokens = self.img2bpe_mapping_tensor[img_batch.to("cpu")]
        img_tokens = torch.cat([img_tokens, eol_row], dim=-1)
        return img_tokens.to(device)


class Apertus1p5ImageEmbedder(nn.Module):
    def __init__(self, hidden_size=32):
        super().__init__()
        vocab_map = {"<pad>": 0, "<|extra_200|>": 5, "<image>": 6}
        vocab_map.update({f"<|visual token {i:06d}|>": 10 + i for i in range(CODEBOOK_SIZE)})
        self.vqmodel = Apertus1p5VQVAE()
        self.vocabulary_mapping = Apertus1p5ImageVocabularyMapping(vocab_map)
        self.embed_tokens = nn.Embedding(10 + CODEBOOK_SIZE, hidden_size)

    def get_input_embeddings(self):
        return self.embed_tokens

    @staticmethod
    def _validate_image_inputs(pixel_values, image_sizes):
        if image_sizes is None:
            raise ValueError("`image_sizes` must be provided when `pixel_values` are provided.")
        if pixel_values.shape[0] != image_sizes.shape[0]:
            raise ValueError("The number of images in `pixel_values` must match the number of entries in `image_sizes`")

    def get_image_features(self, pixel_values, image_sizes):
        self._validate_image_inputs(pixel_values, image_sizes)
        image_tokens_list = []
        for image, size in zip(pixel_values, image_sizes):
            image = image[None, :, : int(size[0]), : int(size[1])]
            image_tokens_list.append(self.vqmodel.encode(image)[0])
        split_sizes = [
            (height // self.vqmodel.vision_spatial_factor) * (width // self.vqmodel.vision_spatial_factor + 1)
            for height, width in image_sizes
        ]
        bpe_tokens_list = [self.vocabulary_mapping.convert_img2bpe(tokens).flatten() for tokens in image_tokens_list]
        bpe_tokens = torch.cat(bpe_tokens_list)
        image_embeddings = self.get_input_embeddings()(bpe_tokens)
        image_features = torch.split(image_embeddings, split_sizes)
        return image_features

    def forward(self, pixel_values, image_sizes):
        image_features = self.get_image_features(pixel_values, image_sizes)
        image_features = torch.cat(image_features, dim=0)
        return image_features


def make_model():
    return Apertus1p5ImageEmbedder().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 48), torch.tensor([[32, 48], [16, 32]]))


def other_inputs():
    return [
        (torch.randn(3, 3, 48, 32), torch.tensor([[48, 32], [32, 16], [16, 16]])),
        (torch.randn(1, 3, 16, 32), torch.tensor([[16, 32]])),
    ]


def probe_inputs():
    return other_inputs()

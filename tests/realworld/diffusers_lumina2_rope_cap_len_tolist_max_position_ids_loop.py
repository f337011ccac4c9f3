"""Diffusers Lumina2Transformer2DModel's `Lumina2RotaryPosEmbed`: the rotary position ids are built from the text
attention mask with `attention_mask.sum(dim=1).tolist()`, Python `max(seq_lengths)` for the buffer length and
per-sample loops that slice with those Python ints. The model review reports this breaks
`torch.compile(fullgraph=True)` (tensor values moved into Python and used for shapes/slices).

Source: https://github.com/huggingface/diffusers/issues/13613
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {
    "hidden_states": {0: "batch", 2: "height", 3: "width"},
    "attention_mask": {0: "batch", 1: "text_len"},
}
BLIND = "domains-56"


def get_1d_rotary_pos_embed(dim, pos, theta=10000.0, freqs_dtype=torch.float32):
    # diffusers.models.embeddings.get_1d_rotary_pos_embed; kept real (cos | sin) instead of complex128 so the
    # case stays about the position-id construction
    pos = torch.arange(pos)
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=freqs_dtype)[: (dim // 2)] / dim))
    freqs = torch.outer(pos, freqs)
    return torch.cat([freqs.cos(), freqs.sin()], dim=-1).float()


class Lumina2RotaryPosEmbed(nn.Module):
    def __init__(self, theta: int, axes_dim: list[int], axes_lens: list[int] = (300, 512, 512), patch_size: int = 2):
        super().__init__()
        self.theta = theta
        self.axes_dim = axes_dim
        self.axes_lens = axes_lens
        self.patch_size = patch_size

        self.freqs_cis = self._precompute_freqs_cis(axes_dim, axes_lens, theta)

    def _precompute_freqs_cis(self, axes_dim: list[int], axes_lens: list[int], theta: int) -> list[torch.Tensor]:
        freqs_cis = []
        freqs_dtype = torch.float32 if torch.backends.mps.is_available() else torch.float64
        for i, (d, e) in enumerate(zip(axes_dim, axes_lens)):
            emb = get_1d_rotary_pos_embed(d, e, theta=self.theta, freqs_dtype=freqs_dtype)
            freqs_cis.append(emb)
        return freqs_cis

    def _get_freqs_cis(self, ids: torch.Tensor) -> torch.Tensor:
        device = ids.device
        if ids.device.type == "mps":
            ids = ids.to("cpu")

        result = []
        for i in range(len(self.axes_dim)):
            freqs = self.freqs_cis[i].to(ids.device)
            index = ids[:, :, i : i + 1].repeat(1, 1, freqs.shape[-1]).to(torch.int64)
            result.append(torch.gather(freqs.unsqueeze(0).repeat(index.shape[0], 1, 1), dim=1, index=index))
        return torch.cat(result, dim=-1).to(device)

    def forward(self, hidden_states: torch.Tensor, attention_mask: torch.Tensor):
        batch_size, channels, height, width = hidden_states.shape
        p = self.patch_size
        post_patch_height, post_patch_width = height // p, width // p
        image_seq_len = post_patch_height * post_patch_width
        device = hidden_states.device

        encoder_seq_len = attention_mask.shape[1]
        l_effective_cap_len = attention_mask.sum(dim=1).tolist()
        seq_lengths = [cap_seq_len + image_seq_len for cap_seq_len in l_effective_cap_len]
        max_seq_len = max(seq_lengths)

        # Create position IDs
        position_ids = torch.zeros(batch_size, max_seq_len, 3, dtype=torch.int32, device=device)

        for i, (cap_seq_len, seq_len) in enumerate(zip(l_effective_cap_len, seq_lengths)):
            # add caption position ids
            position_ids[i, :cap_seq_len, 0] = torch.arange(cap_seq_len, dtype=torch.int32, device=device)
            position_ids[i, cap_seq_len:seq_len, 0] = cap_seq_len

            # add image position ids
            row_ids = (
                torch.arange(post_patch_height, dtype=torch.int32, device=device)
                .view(-1, 1)
                .repeat(1, post_patch_width)
                .flatten()
            )
            col_ids = (
                torch.arange(post_patch_width, dtype=torch.int32, device=device)
                .view(1, -1)
                .repeat(post_patch_height, 1)
                .flatten()
            )
            position_ids[i, cap_seq_len:seq_len, 1] = row_ids
            position_ids[i, cap_seq_len:seq_len, 2] = col_ids

        # Get combined rotary embeddings
        freqs_cis = self._get_freqs_cis(position_ids)

        # create separate rotary embeddings for captions and images
        cap_freqs_cis = torch.zeros(
            batch_size, encoder_seq_len, freqs_cis.shape[-1], device=device, dtype=freqs_cis.dtype
        )
        img_freqs_cis = torch.zeros(
            batch_size, image_seq_len, freqs_cis.shape[-1], device=device, dtype=freqs_cis.dtype
        )

        for i, (cap_seq_len, seq_len) in enumerate(zip(l_effective_cap_len, seq_lengths)):
            cap_freqs_cis[i, :cap_seq_len] = freqs_cis[i, :cap_seq_len]
            img_freqs_cis[i, :image_seq_len] = freqs_cis[i, cap_seq_len:seq_len]

        # image patch embeddings
        hidden_states = (
            hidden_states.view(batch_size, channels, post_patch_height, p, post_patch_width, p)
            .permute(0, 2, 4, 3, 5, 1)
            .flatten(3)
            .flatten(1, 2)
        )

        return hidden_states, cap_freqs_cis, img_freqs_cis, freqs_cis, l_effective_cap_len, seq_lengths


class Lumina2Stem(nn.Module):
    """Start of Lumina2Transformer2DModel.forward: rope + patch embedding."""

    def __init__(self, in_channels=4, hidden_size=32, patch_size=2):
        super().__init__()
        self.rope_embedder = Lumina2RotaryPosEmbed(theta=10000, axes_dim=[8, 4, 4], axes_lens=[64, 32, 32],
                                                   patch_size=patch_size)
        self.x_embedder = nn.Linear(patch_size * patch_size * in_channels, hidden_size)

    def forward(self, hidden_states, attention_mask):
        hidden_states, context_rotary_emb, noise_rotary_emb, rotary_emb, encoder_seq_lengths, seq_lengths = (
            self.rope_embedder(hidden_states, attention_mask)
        )
        hidden_states = self.x_embedder(hidden_states)
        return hidden_states, context_rotary_emb, noise_rotary_emb


def _mask(lengths, text_len):
    return (torch.arange(text_len)[None, :] < torch.tensor(lengths)[:, None]).long()


def make_model():
    return Lumina2Stem().eval()


def example_inputs():
    return (torch.randn(2, 4, 12, 16), _mask([7, 10], 10))


def other_inputs():
    return [(torch.randn(3, 4, 16, 8), _mask([3, 14, 9], 14)), (torch.randn(1, 4, 8, 12), _mask([5], 6))]


def probe_inputs():
    return other_inputs()

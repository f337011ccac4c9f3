"""LiveKit wake-word classifier head (ConvAttentionClassifier: Conv1d blocks -> nn.MultiheadAttention(batch_first)
-> mean pool -> Linear -> Sigmoid over 16 embedding frames), exported with `dummy_input = torch.randn(1, 16, 96)` and
`dynamic_axes={"embeddings": {0: "batch"}}`; the traced batch of 1 gets baked into nn.MultiheadAttention's internal
reshapes, so the ONNX model only runs with batch 1 (the fix traces with batch 2).

Source: https://github.com/livekit/livekit-wakeword/pull/39
"""
import torch
import torch.nn as nn

CLASS = "exporter-defaults"
FAMILY = "views"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-11"


class ConvAttentionClassifier(nn.Module):
    """1D Temporal Convolution + Self-Attention classification head.

    Conv1D blocks -> MultiheadAttention -> Mean pool -> Linear(1) -> Sigmoid
    """

    def __init__(self, n_timesteps: int = 16, embedding_dim: int = 96, layer_dim: int = 32,
                 n_blocks: int = 1, n_heads: int = 4):
        super().__init__()
        # Project embedding dim to layer_dim via 1D conv
        conv_layers: list[nn.Module] = [
            nn.Conv1d(embedding_dim, layer_dim, kernel_size=3, padding=1),
            nn.LayerNorm([layer_dim, n_timesteps]),
            nn.ReLU(inplace=True),
        ]
        for _ in range(n_blocks):
            conv_layers.extend([
                nn.Conv1d(layer_dim, layer_dim, kernel_size=3, padding=1),
                nn.LayerNorm([layer_dim, n_timesteps]),
                nn.ReLU(inplace=True),
            ])
        self.conv = nn.Sequential(*conv_layers)

        # Self-attention over timesteps
        self.n_heads = min(n_heads, layer_dim)
        while layer_dim % self.n_heads != 0:
            self.n_heads -= 1
        self.attention = nn.MultiheadAttention(
            embed_dim=layer_dim,
            num_heads=self.n_heads,
            batch_first=True,
        )
        self.attn_norm = nn.LayerNorm(layer_dim)

        # Classification head
        self.head = nn.Sequential(
            nn.Linear(layer_dim, 1),
            nn.Sigmoid(),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (batch, 16, 96) -> (batch, 96, 16) for Conv1d
        x = x.transpose(1, 2)
        x = self.conv(x)
        # (batch, layer_dim, 16) -> (batch, 16, layer_dim) for attention
        x = x.transpose(1, 2)
        # Self-attention with residual
        attn_out, _ = self.attention(x, x, x)
        x = self.attn_norm(x + attn_out)
        # Mean pool over timesteps -> (batch, layer_dim)
        x = x.mean(dim=1)
        return self.head(x)


def make_model():
    return ConvAttentionClassifier().eval()


def example_inputs():
    # the export script's dummy input: (1, 16, 96)
    return (torch.randn(1, 16, 96),)


def other_inputs():
    return [(torch.randn(4, 16, 96),), (torch.randn(2, 16, 96),)]


def probe_inputs():
    return other_inputs()

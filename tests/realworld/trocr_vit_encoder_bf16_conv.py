"""TrOCR (handwritten text recognition) exported with `--dtype bf16`: the ViT image encoder is cast to
bfloat16 and fed bfloat16 `pixel_values`; the ONNX encoder then fails to load in onnxruntime with
"Type 'tensor(bfloat16)' of input parameter (pixel_values) of operator (Conv) in node
(/embeddings/patch_embeddings/projection/Conv) is invalid".

Source: https://github.com/huggingface/optimum/issues/1845
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"pixel_values": {0: "batch_size"}}
BLIND = "domains-10"


class ViTPatchEmbeddings(nn.Module):
    def __init__(self, image_size=32, patch_size=8, num_channels=3, hidden_size=64):
        super().__init__()
        self.num_patches = (image_size // patch_size) ** 2
        self.projection = nn.Conv2d(num_channels, hidden_size, kernel_size=patch_size, stride=patch_size)

    def forward(self, pixel_values):
        embeddings = self.projection(pixel_values).flatten(2).transpose(1, 2)
        return embeddings


class ViTEmbeddings(nn.Module):
    def __init__(self, hidden_size=64):
        super().__init__()
        self.cls_token = nn.Parameter(torch.randn(1, 1, hidden_size) * 0.02)
        self.patch_embeddings = ViTPatchEmbeddings(hidden_size=hidden_size)
        self.position_embeddings = nn.Parameter(torch.randn(1, self.patch_embeddings.num_patches + 1, hidden_size) * 0.02)

    def forward(self, pixel_values):
        batch_size = pixel_values.shape[0]
        embeddings = self.patch_embeddings(pixel_values)
        cls_tokens = self.cls_token.expand(batch_size, -1, -1)
        embeddings = torch.cat((cls_tokens, embeddings), dim=1)
        return embeddings + self.position_embeddings


class ViTLayer(nn.Module):
    def __init__(self, hidden_size=64, heads=4):
        super().__init__()
        self.layernorm_before = nn.LayerNorm(hidden_size, eps=1e-12)
        self.attention = nn.MultiheadAttention(hidden_size, heads, batch_first=True)
        self.layernorm_after = nn.LayerNorm(hidden_size, eps=1e-12)
        self.intermediate = nn.Linear(hidden_size, 4 * hidden_size)
        self.output = nn.Linear(4 * hidden_size, hidden_size)

    def forward(self, hidden_states):
        h = self.layernorm_before(hidden_states)
        hidden_states = hidden_states + self.attention(h, h, h, need_weights=False)[0]
        h = self.layernorm_after(hidden_states)
        return hidden_states + self.output(nn.functional.gelu(self.intermediate(h)))


class TrOCREncoder(nn.Module):
    """The encoder half of VisionEncoderDecoderModel (encoder_model.onnx)."""

    def __init__(self, hidden_size=64, layers=2):
        super().__init__()
        self.embeddings = ViTEmbeddings(hidden_size)
        self.layer = nn.ModuleList([ViTLayer(hidden_size) for _ in range(layers)])
        self.layernorm = nn.LayerNorm(hidden_size, eps=1e-12)

    def forward(self, pixel_values):
        hidden_states = self.embeddings(pixel_values)
        for layer_module in self.layer:
            hidden_states = layer_module(hidden_states)
        return self.layernorm(hidden_states)


def make_model():
    model = TrOCREncoder().eval()
    return model.to(torch.bfloat16)  # --dtype bf16


def example_inputs():
    return (torch.randn(8, 3, 32, 32).to(torch.bfloat16),)


def other_inputs():
    return [(torch.randn(3, 3, 32, 32).to(torch.bfloat16),), (torch.randn(1, 3, 32, 32).to(torch.bfloat16),)]


def probe_inputs():
    return other_inputs()

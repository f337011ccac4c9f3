"""PRX text-to-image transformer (diffusers): `img2seq` patchifies the latent with
`unfold(img, kernel_size=patch_size, stride=patch_size).transpose(1, 2)` and `seq2img` puts it back with
`fold(seq.transpose(1, 2), shape, kernel_size=patch_size, stride=patch_size)`, `shape` being
`hidden_states.shape[-2:]`. The report: the exported ONNX graph carries `Col2Im` (from fold/unfold), which the
TensorRT build rejects; the fix (#12787) rewrote both with reshape/einsum. The code BEFORE the fix is the case;
the text branch, rotary embeddings and transformer blocks are trimmed to one gated-MLP block with timestep
modulation, keeping the latent -> patches -> latent path.

Source: https://github.com/huggingface/diffusers/issues/12786
"""
import torch
from torch import nn
from torch.nn.functional import fold, unfold

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"hidden_states": {0: "batch", 2: "height", 3: "width"}, "timestep": {0: "batch"}}
BLIND = "operators-46"


def img2seq(img: torch.Tensor, patch_size: int) -> torch.Tensor:
    return unfold(img, kernel_size=patch_size, stride=patch_size).transpose(1, 2)


def seq2img(seq: torch.Tensor, patch_size: int, shape: torch.Tensor) -> torch.Tensor:
    if isinstance(shape, tuple):
        shape = shape[-2:]
    elif isinstance(shape, torch.Tensor):
        shape = (int(shape[0]), int(shape[1]))
    else:
        raise NotImplementedError(f"shape type {type(shape)} not supported")
    return fold(seq.transpose(1, 2), shape, kernel_size=patch_size, stride=patch_size)


class FinalLayer(nn.Module):
    def __init__(self, hidden_size: int, patch_size: int, out_channels: int):
        super().__init__()
        self.norm_final = nn.LayerNorm(hidden_size, elementwise_affine=False, eps=1e-6)
        self.linear = nn.Linear(hidden_size, patch_size * patch_size * out_channels, bias=True)
        self.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(hidden_size, 2 * hidden_size, bias=True))

    def forward(self, x: torch.Tensor, vec: torch.Tensor) -> torch.Tensor:
        shift, scale = self.adaLN_modulation(vec).chunk(2, dim=1)
        x = (1 + scale[:, None, :]) * self.norm_final(x) + shift[:, None, :]
        x = self.linear(x)
        return x


class PRXTransformer2DModel(nn.Module):
    def __init__(self, in_channels=4, patch_size=2, hidden_size=32):
        super().__init__()
        self.in_channels = in_channels
        self.patch_size = patch_size
        self.out_channels = self.in_channels * self.patch_size**2
        patch_dim = self.in_channels * self.patch_size**2
        self.img_in = nn.Linear(patch_dim, hidden_size, bias=True)
        self.time_in = nn.Sequential(nn.Linear(1, hidden_size), nn.SiLU(), nn.Linear(hidden_size, hidden_size))
        self.norm = nn.LayerNorm(hidden_size, elementwise_affine=False, eps=1e-6)
        self.gate_proj = nn.Linear(hidden_size, 2 * hidden_size, bias=False)
        self.up_proj = nn.Linear(hidden_size, 2 * hidden_size, bias=False)
        self.down_proj = nn.Linear(2 * hidden_size, hidden_size, bias=False)
        self.mlp_act = nn.GELU(approximate="tanh")
        self.final_layer = FinalLayer(hidden_size, 1, self.out_channels)

    def forward(self, hidden_states: torch.Tensor, timestep: torch.Tensor) -> torch.Tensor:
        # Convert image to sequence and embed
        img = img2seq(hidden_states, self.patch_size)
        img = self.img_in(img)

        vec = self.time_in(timestep[:, None])
        x = self.norm(img)
        img = img + self.down_proj(self.mlp_act(self.gate_proj(x)) * self.up_proj(x))

        # Final layer and convert back to image
        img = self.final_layer(img, vec)
        output = seq2img(img, self.patch_size, hidden_states.shape)
        return output


def make_model():
    return PRXTransformer2DModel().eval()


def example_inputs():
    return (torch.randn(2, 4, 16, 12), torch.rand(2))


def other_inputs():
    return [(torch.randn(3, 4, 24, 16), torch.rand(3)), (torch.randn(1, 4, 8, 20), torch.rand(1))]


def probe_inputs():
    return other_inputs()

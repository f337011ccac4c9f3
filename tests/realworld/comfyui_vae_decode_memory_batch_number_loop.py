"""ComfyUI's `VAE.decode` traced for ONNX export (`torch.jit.trace(vae.decode, ...)` then
`torch.onnx.export`): it sizes its memory budget from the latent shape (`memory_used_decode(shape)`,
`max(inference_memory, memory_required)` in `load_models_gpu`), computes `batch_number =
int(free_memory / memory_used)`, allocates `torch.empty` with `round(shape * downscale_ratio)` and
loops `for x in range(0, samples_in.shape[0], batch_number)` writing decoded slices in place; the
report gets TracerWarnings on those Python values and the export does not generalize.

Source: https://github.com/Comfy-Org/ComfyUI/issues/3023
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"samples_in": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-38"


# --- comfy/model_management.py (CPU path, trimmed) ---
def get_free_memory(dev=None):
    return 8 * 1024 * 1024 * 1024  # psutil.virtual_memory().available on the reporter's machine


def minimum_inference_memory():
    return 1024 * 1024 * 1024


def dtype_size(dtype):
    dtype_size = 4
    if dtype == torch.float16 or dtype == torch.bfloat16:
        dtype_size = 2
    return dtype_size


def load_models_gpu(models, memory_required=0):
    inference_memory = minimum_inference_memory()
    extra_mem = max(inference_memory, memory_required)
    if get_free_memory() < extra_mem:
        for m in models:
            m.cpu()
    return extra_mem


# --- first stage model (AutoencoderKL decoder, tiny) ---
class Decoder(nn.Module):
    def __init__(self, z_channels=4, ch=16):
        super().__init__()
        self.post_quant_conv = nn.Conv2d(z_channels, z_channels, 1)
        self.conv_in = nn.Conv2d(z_channels, ch, 3, padding=1)
        self.ups = nn.ModuleList([nn.Conv2d(ch, ch, 3, padding=1) for _ in range(3)])
        self.conv_out = nn.Conv2d(ch, 3, 3, padding=1)

    def decode(self, z):
        h = self.conv_in(self.post_quant_conv(z))
        for up in self.ups:
            h = up(F.silu(F.interpolate(h, scale_factor=2.0, mode="nearest")))
        return self.conv_out(F.silu(h))


# --- comfy/sd.py VAE.decode ---
class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.memory_used_decode = lambda shape, dtype: (2178 * shape[2] * shape[3] * 64) * dtype_size(dtype)
        self.downscale_ratio = 8
        self.first_stage_model = Decoder()
        self.vae_dtype = torch.float32
        self.device = torch.device("cpu")
        self.output_device = torch.device("cpu")

    def decode(self, samples_in):
        memory_used = self.memory_used_decode(samples_in.shape, self.vae_dtype)
        load_models_gpu([self.first_stage_model], memory_required=memory_used)
        free_memory = get_free_memory(self.device)
        batch_number = int(free_memory / memory_used)
        batch_number = max(1, batch_number)

        pixel_samples = torch.empty((samples_in.shape[0], 3, round(samples_in.shape[2] * self.downscale_ratio), round(samples_in.shape[3] * self.downscale_ratio)), device=self.output_device)
        for x in range(0, samples_in.shape[0], batch_number):
            samples = samples_in[x:x+batch_number].to(self.vae_dtype).to(self.device)
            pixel_samples[x:x+batch_number] = torch.clamp((self.first_stage_model.decode(samples).to(self.output_device).float() + 1.0) / 2.0, min=0.0, max=1.0)

        pixel_samples = pixel_samples.to(self.output_device).movedim(1, -1)
        return pixel_samples

    def forward(self, samples_in):
        return self.decode(samples_in)


def make_model():
    return VAE().eval()


def example_inputs():
    return (torch.randn(2, 4, 8, 8),)


def other_inputs():
    return [(torch.randn(3, 4, 6, 10),), (torch.randn(1, 4, 12, 8),)]


def probe_inputs():
    return other_inputs()

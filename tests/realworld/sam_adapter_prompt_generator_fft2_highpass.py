"""SAM-Adapter (SAM fine-tuned for camouflaged-object / polyp / shadow segmentation): the image encoder's
PromptGenerator builds its hand-crafted prompt from a high-frequency image via `torch.fft.fft2` +
`fftshift` + mask + `ifftshift(torch.complex(fr, fi))` + `ifft2(...).real`; exporting the encoder fails
with "Exporting the operator 'aten::fft_fft2' to ONNX opset version 19 is not supported".

Source: https://github.com/tianrun-chen/SAM-Adapter-PyTorch/issues/119
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-6"


class PatchEmbed2(nn.Module):
    def __init__(self, patch_size=16, in_chans=3, embed_dim=64):
        super().__init__()
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x):
        B, C, H, W = x.shape
        x = self.proj(x)
        return x


class PromptGenerator(nn.Module):
    """Trimmed: handcrafted (FFT high-pass) tuning + embedding tuning -> per-block prompts."""

    def __init__(self, scale_factor=4, embed_dim=64, depth=2, freq_nums=0.25, patch_size=16):
        super().__init__()
        self.scale_factor = scale_factor
        self.embed_dim = embed_dim
        self.depth = depth
        self.freq_nums = freq_nums
        self.patch_embed = PatchEmbed2(patch_size, 3, embed_dim)
        self.shared_mlp = nn.Linear(self.embed_dim // self.scale_factor, self.embed_dim)
        self.embedding_generator = nn.Linear(self.embed_dim, self.embed_dim // self.scale_factor)
        self.handcrafted_generator = PatchEmbed2(patch_size, 3, self.embed_dim // self.scale_factor)
        for i in range(self.depth):
            setattr(self, 'lightweight_mlp_{}'.format(str(i)), nn.Sequential(
                nn.Linear(self.embed_dim // self.scale_factor, self.embed_dim // self.scale_factor),
                nn.GELU()))

    def init_handcrafted(self, x):
        x = self.fft(x, self.freq_nums)
        return self.handcrafted_generator(x)

    def get_prompt(self, handcrafted_feature, embedding_feature):
        N, C, H, W = handcrafted_feature.shape
        handcrafted_feature = handcrafted_feature.view(N, C, H * W).permute(0, 2, 1)
        prompts = []
        for i in range(self.depth):
            lightweight_mlp = getattr(self, 'lightweight_mlp_{}'.format(str(i)))
            prompt = lightweight_mlp(handcrafted_feature + embedding_feature)
            prompts.append(self.shared_mlp(prompt))
        return prompts

    def fft(self, x, rate):
        # the smaller rate, the smoother; the larger rate, the darker
        # rate = 4, 8, 16, 32
        mask = torch.zeros(x.shape).to(x.device)
        w, h = x.shape[-2:]
        line = int((w * h * rate) ** .5 // 2)
        mask[:, :, w//2-line:w//2+line, h//2-line:h//2+line] = 1

        fft = torch.fft.fftshift(torch.fft.fft2(x, norm="forward"))
        # high pass: 1-mask, low pass: mask
        fft = fft * (1 - mask)
        fr = fft.real
        fi = fft.imag

        fft_hires = torch.fft.ifftshift(torch.complex(fr, fi))
        inv = torch.fft.ifft2(fft_hires, norm="forward").real

        inv = torch.abs(inv)

        return inv

    def forward(self, x):
        inp = x
        x = self.patch_embed(x)                      # B, D, H/16, W/16
        x = x.flatten(2).transpose(1, 2)             # B, HW, D
        embedding_feature = self.embedding_generator(x)
        handcrafted_feature = self.init_handcrafted(inp)
        prompts = self.get_prompt(handcrafted_feature, embedding_feature)
        return torch.stack([x + p for p in prompts], dim=1)


def make_model():
    return PromptGenerator().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 64),), (torch.randn(3, 3, 128, 96),)]


def probe_inputs():
    return other_inputs()

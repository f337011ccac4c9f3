"""ComfyUI SD3 MMDiT (comfy/ldm/modules/diffusionmodules/mmdit.py): `cropped_pos_embed(hw)` turns the latent
size into patch counts with Python arithmetic, asserts `h <= self.pos_embed_max_size`, and crops the stored
position table at `top = (pos_embed_max_size - h) // 2` / `left`; exporting the SD3 model for a dynamic-shape
TensorRT engine emits TracerWarnings on those asserts (mmdit.py:852-853): the crop is traced as a constant.

Source: https://github.com/comfyanonymous/ComfyUI_TensorRT/issues/43
"""
import torch
import torch.nn as nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-53"


def rearrange(tensor, pattern, **axes_lengths):
    # the two einops patterns the model uses (einops computes the target shape from Python ints)
    if pattern == "1 (h w) c -> 1 h w c":
        h, w = axes_lengths["h"], axes_lengths["w"]
        return tensor.reshape(1, h, w, tensor.shape[2])
    if pattern == "1 h w c -> 1 (h w) c":
        _, h, w, c = tensor.shape
        return tensor.reshape(1, h * w, c)
    raise NotImplementedError(pattern)


class PatchEmbed(nn.Module):
    def __init__(self, patch_size=2, in_chans=4, embed_dim=32, flatten=True, dynamic_img_pad=True):
        super().__init__()
        self.patch_size = (patch_size, patch_size)
        self.flatten = flatten
        self.dynamic_img_pad = dynamic_img_pad
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size, bias=True)
        self.norm = nn.Identity()

    def forward(self, x):
        B, C, H, W = x.shape
        if self.dynamic_img_pad:
            pad_h = (self.patch_size[0] - H % self.patch_size[0]) % self.patch_size[0]
            pad_w = (self.patch_size[1] - W % self.patch_size[1]) % self.patch_size[1]
            x = torch.nn.functional.pad(x, (0, pad_w, 0, pad_h), mode='reflect')
        x = self.proj(x)
        if self.flatten:
            x = x.flatten(2).transpose(1, 2)  # NCHW -> NLC
        x = self.norm(x)
        return x


class MMDiT(nn.Module):
    def __init__(self, in_channels=4, hidden_size=32, patch_size=2, pos_embed_max_size=16):
        super().__init__()
        self.out_channels = in_channels
        self.hidden_size = hidden_size
        self.pos_embed_max_size = pos_embed_max_size
        self.x_embedder = PatchEmbed(patch_size, in_channels, hidden_size)
        self.register_buffer("pos_embed", torch.randn(1, pos_embed_max_size * pos_embed_max_size, hidden_size))
        # stand-in for the joint blocks + FinalLayer
        self.final_layer = nn.Linear(hidden_size, patch_size * patch_size * self.out_channels)

    def cropped_pos_embed(self, hw, device=None):
        p = self.x_embedder.patch_size[0]
        h, w = hw
        # patched size
        h = (h + 1) // p
        w = (w + 1) // p
        assert self.pos_embed_max_size is not None
        assert h <= self.pos_embed_max_size, (h, self.pos_embed_max_size)
        assert w <= self.pos_embed_max_size, (w, self.pos_embed_max_size)
        top = (self.pos_embed_max_size - h) // 2
        left = (self.pos_embed_max_size - w) // 2
        spatial_pos_embed = rearrange(
            self.pos_embed,
            "1 (h w) c -> 1 h w c",
            h=self.pos_embed_max_size,
            w=self.pos_embed_max_size,
        )
        spatial_pos_embed = spatial_pos_embed[:, top : top + h, left : left + w, :]
        spatial_pos_embed = rearrange(spatial_pos_embed, "1 h w c -> 1 (h w) c")
        return spatial_pos_embed

    def unpatchify(self, x, hw=None):
        c = self.out_channels
        p = self.x_embedder.patch_size[0]
        if hw is None:
            h = w = int(x.shape[1] ** 0.5)
        else:
            h, w = hw
            h = (h + 1) // p
            w = (w + 1) // p
        assert h * w == x.shape[1]

        x = x.reshape(shape=(x.shape[0], h, w, p, p, c))
        x = torch.einsum("nhwpqc->nchpwq", x)
        imgs = x.reshape(shape=(x.shape[0], c, h * p, w * p))
        return imgs

    def forward(self, x):
        hw = x.shape[-2:]
        x = self.x_embedder(x) + self.cropped_pos_embed(hw, device=x.device).to(dtype=x.dtype, device=x.device)
        x = self.final_layer(x)
        x = self.unpatchify(x, hw=hw)  # (N, out_channels, H, W)
        return x[:, :, :hw[-2], :hw[-1]]


def make_model():
    return MMDiT().eval()


def example_inputs():
    return (torch.randn(2, 4, 16, 20),)


def other_inputs():
    return [(torch.randn(1, 4, 24, 12),), (torch.randn(3, 4, 13, 30),)]


def probe_inputs():
    return other_inputs()

"""NoPoSplat (pose-free 3-D Gaussian splatting from two views): the CroCo backbone builds
`true_shape = torch.tensor(img.shape[-2:])[None].repeat(B, 1)` and the encoder hands
`shape1[0].cpu().tolist()` to the DPT Gaussian-parameter head, which reshapes tokens to
`H // patch, W // patch`. The reporter could not export the encoder with torch.onnx.export nor dynamo_export.

Source: https://github.com/cvg/NoPoSplat/issues/31
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"image1": {0: "batch", 2: "height", 3: "width"},
           "image2": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-73"


class DPTOutputAdapter(nn.Module):
    def __init__(self, dim=32, out_nchan=8, patch_size=8):
        super().__init__()
        self.P_H = self.P_W = patch_size
        self.stride_level = 1
        self.image_size = None
        self.act_postprocess = nn.Conv2d(dim, dim, 3, padding=1)
        self.head = nn.Conv2d(dim, out_nchan * patch_size * patch_size, 1)

    def forward(self, encoder_tokens, image_size=None):
        # H, W = input_info['image_size']
        image_size = self.image_size if image_size is None else image_size
        H, W = image_size
        # Number of patches in height and width
        N_H = H // (self.stride_level * self.P_H)
        N_W = W // (self.stride_level * self.P_W)
        layers = encoder_tokens[-1:]
        # Reshape tokens to spatial representation ('b (nh nw) c -> b c nh nw')
        layers = [l.transpose(1, 2).reshape(l.shape[0], l.shape[2], N_H, N_W) for l in layers]
        path = self.act_postprocess(layers[0])
        return F.pixel_shuffle(self.head(path), self.P_H)


class GSHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.dpt = DPTOutputAdapter()

    def forward(self, x, img_info):
        out = self.dpt(x, image_size=(img_info[0], img_info[1]))
        return out


class EncoderNoPoSplat(nn.Module):
    def __init__(self, dim=32, patch_size=8):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim, patch_size, stride=patch_size)
        self.dec_blocks = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))
        self.gaussian_param_head = GSHead()
        self.gaussian_param_head2 = GSHead()

    def _encode_image(self, image):
        return self.patch_embed(image).flatten(2).transpose(1, 2)

    def _encode_symmetrized(self, img1, img2):
        B = img1.shape[0]
        # Recover true_shape when available, otherwise assume that the img shape is the true one
        shape1 = torch.tensor(img1.shape[-2:])[None].repeat(B, 1)
        shape2 = torch.tensor(img2.shape[-2:])[None].repeat(B, 1)
        feat1, feat2 = self._encode_image(img1), self._encode_image(img2)
        return (shape1, shape2), (feat1, feat2)

    def forward(self, image1, image2):
        (shape1, shape2), (feat1, feat2) = self._encode_symmetrized(image1, image2)
        dec1, dec2 = [self.dec_blocks(feat1 + feat2.mean(1, keepdim=True))], [self.dec_blocks(feat2 + feat1.mean(1, keepdim=True))]
        with torch.cuda.amp.autocast(enabled=False):
            GS_res1 = self.gaussian_param_head([tok.float() for tok in dec1], shape1[0].cpu().tolist())
            GS_res1 = GS_res1.flatten(2).transpose(1, 2)  # "b d h w -> b (h w) d"
            GS_res2 = self.gaussian_param_head2([tok.float() for tok in dec2], shape2[0].cpu().tolist())
            GS_res2 = GS_res2.flatten(2).transpose(1, 2)
        gaussians = torch.stack([GS_res1, GS_res2], dim=1)
        return gaussians


def make_model():
    return EncoderNoPoSplat().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 96), torch.randn(1, 3, 64, 96))


def other_inputs():
    return [(torch.randn(2, 3, 48, 64), torch.randn(2, 3, 48, 64)),
            (torch.randn(3, 3, 80, 40), torch.randn(3, 3, 80, 40))]


def probe_inputs():
    return other_inputs()

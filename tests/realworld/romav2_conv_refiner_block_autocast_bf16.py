"""RoMa v2's ConvRefiner runs its depthwise/pointwise conv Blocks under
`torch.autocast(device_type=device.type, dtype=torch.bfloat16)` (AMP on by default); exported on CPU the
graph carries bfloat16 Conv/BatchNorm nodes and casts that onnxruntime rejects, so the ONNX port had to
disable every AMP/bfloat16 path "so the full graph stays in float32 (required for ORT compatibility)".

Source: https://github.com/Parskatt/RoMaV2/issues/46
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {
    "f_A": {0: "batch"},
    "f_B": {0: "batch"},
    "prev_warp": {0: "batch"},
    "prev_confidence": {0: "batch"},
}
BLIND = "operators-20"

device = torch.device("cpu")
if torch.cuda.is_available():
    device = torch.device("cuda")


def get_normalized_grid(B, H, W, overload_device=None):
    x1_n = torch.meshgrid(
        *[
            torch.linspace(-1 + 1 / n, 1 - 1 / n, n, device=overload_device or device)
            for n in (B, H, W)
        ],
        indexing="ij",
    )
    x1_n = torch.stack((x1_n[2], x1_n[1]), dim=-1).reshape(B, H, W, 2)
    return x1_n


def bhwc_grid_sample(x, grid, mode="bilinear", align_corners=None):
    return F.grid_sample(
        x.permute(0, 3, 1, 2), grid, mode=mode, align_corners=align_corners
    ).permute(0, 2, 3, 1)


def create_block(in_dim, out_dim, kernel_size, bn_momentum):
    conv_depthwise = nn.Conv2d(
        in_dim, out_dim, kernel_size=kernel_size, padding=kernel_size // 2, groups=in_dim
    )
    norm = nn.BatchNorm2d(out_dim, momentum=bn_momentum)
    relu = nn.ReLU(inplace=True)
    conv_pointwise = nn.Conv2d(out_dim, out_dim, 1, 1, 0)
    return [conv_depthwise, norm, relu, conv_pointwise]


class Block(nn.Module):
    def __init__(self, in_dim, out_dim, kernel_size, bn_momentum, enable_amp):
        super().__init__()
        self.conv_depthwise, self.norm, self.relu, self.conv_pointwise = create_block(
            in_dim, out_dim, kernel_size, bn_momentum
        )
        self.enable_amp = enable_amp

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.autocast(
            device_type=device.type, enabled=self.enable_amp, dtype=torch.bfloat16
        ):
            x = self.conv_depthwise(x)
            x = self.norm(x)
            x = self.relu(x)
            x = self.conv_pointwise(x)
        return x


class ConvRefiner(nn.Module):
    # patch-size-1 refiner of "roma-4-pow2": tot 12 * 2 + 8 = 32
    def __init__(self, feat_dim=64, proj_dim=12, displacement_emb_dim=8, kernel_size=5,
                 hidden_blocks=8, bn_momentum=0.01, enable_amp=True, refine_init=4.0,
                 warp_dim=2, confidence_dim=4):
        super().__init__()
        self.feat_dim, self.proj_dim, self.refine_init = feat_dim, proj_dim, refine_init
        self.warp_dim, self.confidence_dim = warp_dim, confidence_dim
        self.proj = nn.Linear(feat_dim, proj_dim)
        hidden_dim = 2 * proj_dim + displacement_emb_dim
        self.block1 = Block(hidden_dim, hidden_dim, kernel_size, bn_momentum, enable_amp)
        self.hidden_blocks = nn.Sequential(
            *[Block(hidden_dim, hidden_dim, kernel_size, bn_momentum, enable_amp)
              for _ in range(hidden_blocks)]
        )
        self.disp_emb = nn.Conv2d(2, displacement_emb_dim, 1, 1, 0)
        self.warp_head = nn.Conv2d(hidden_dim, warp_dim, 1, 1, 0)
        self.confidence_head = nn.Conv2d(hidden_dim, confidence_dim, 1, 1, 0)

    def forward(self, f_A, f_B, prev_warp, prev_confidence, scale_factor):
        B, H_A, W_A, _ = f_A.shape
        B, H_B, W_B, D = f_B.shape
        prev_warp = prev_warp.detach()
        prev_confidence = prev_confidence.detach()
        f_A = self.proj(f_A.reshape(B, H_A * W_A, self.feat_dim).float()).reshape(
            B, H_A, W_A, self.proj_dim
        )
        f_B = self.proj(f_B.reshape(B, H_B * W_B, self.feat_dim).float()).reshape(
            B, H_B, W_B, self.proj_dim
        )
        with torch.no_grad():
            f_BA = bhwc_grid_sample(f_B, prev_warp, mode="bilinear", align_corners=False)
        im_A_coords = get_normalized_grid(B, H_A, W_A)
        in_displacement = prev_warp - im_A_coords
        in_displacement_bdhw = in_displacement.permute(0, 3, 1, 2)
        emb_in_displacement = self.disp_emb(
            scale_factor[None, :, None, None] * in_displacement_bdhw
        )
        f_A_bdhw = f_A.permute(0, 3, 1, 2)
        f_B_bdhw = f_BA.permute(0, 3, 1, 2)
        d = torch.cat((f_A_bdhw, f_B_bdhw, emb_in_displacement), dim=1)
        z = self.block1(d)
        z = self.hidden_blocks(z)
        z = z.float()

        displacement = self.warp_head(z)
        delta_confidence = self.confidence_head(z)
        displacement = displacement.permute(0, 2, 3, 1)
        delta_confidence = delta_confidence.permute(0, 2, 3, 1)
        warp = prev_warp + displacement / (
            self.refine_init * torch.tensor((W_A, H_A), device=device)[None, None, None]
        )
        confidence = prev_confidence + delta_confidence
        return warp, confidence


class RefineStage(nn.Module):
    def __init__(self, anchor_width=512, anchor_height=512, H=32, W=32):
        super().__init__()
        self.refiner = ConvRefiner()
        self.anchor_width, self.anchor_height = anchor_width, anchor_height
        self.H, self.W = H, W

    def forward(self, f_A, f_B, prev_warp, prev_confidence):
        scale_factor = torch.tensor(
            (self.W / self.anchor_width, self.H / self.anchor_height), device=device
        )
        return self.refiner(f_A, f_B, prev_warp, prev_confidence, scale_factor)


def make_model():
    return RefineStage().eval()


def _inputs(b):
    f_A = torch.randn(b, 32, 32, 64)
    f_B = torch.randn(b, 32, 32, 64)
    prev_warp = torch.rand(b, 32, 32, 2) * 2 - 1
    prev_confidence = torch.randn(b, 32, 32, 4)
    return (f_A, f_B, prev_warp, prev_confidence)


def example_inputs():
    return _inputs(1)


def other_inputs():
    return [_inputs(2), _inputs(3)]


def probe_inputs():
    return other_inputs()

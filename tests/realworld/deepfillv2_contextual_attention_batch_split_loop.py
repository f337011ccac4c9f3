"""DeepFill v2 inpainting generator (nipponjo/deepfillv2-pytorch): the ContextualAttention layer of
the fine stage reads `list(f.size())`, splits foreground and background patches along the batch with
`torch.split(..., 1, dim=0)` and loops over `zip(f_groups, w_groups, raw_w_groups)`, one conv/softmax/
conv_transpose per image, then `torch.cat(y, dim=0).view(raw_int_fs)`; exported with dynamic batch,
height and width, the ONNX model "didn't work" in onnxruntime.

Source: https://github.com/nipponjo/deepfillv2-pytorch/issues/12
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}, "mask": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-9"


def extract_image_patches(images, ksize, stride, rate, padding='auto'):
    padding = rate*(ksize-1)//2 if padding == 'auto' else padding
    unfold = torch.nn.Unfold(kernel_size=ksize, dilation=rate, padding=padding, stride=stride)
    patches = unfold(images)
    return patches  # [N, C*k*k, L], L is the total number of such blocks


class ContextualAttention(nn.Module):
    def __init__(self, ksize=3, stride=1, rate=1, fuse_k=3, softmax_scale=10., n_down=2, fuse=False):
        super().__init__()
        self.ksize = ksize
        self.stride = stride
        self.rate = rate
        self.fuse_k = fuse_k
        self.softmax_scale = softmax_scale
        self.fuse = fuse
        self.n_down = n_down
        self.register_buffer('fuse_weight', torch.eye(fuse_k).view(1, 1, fuse_k, fuse_k))

    def forward(self, f, b, mask=None):
        device = f.device
        # get shapes
        raw_int_fs, raw_int_bs = list(f.size()), list(b.size())   # b*c*h*w
        kernel = 2 * self.rate
        raw_w = extract_image_patches(b, ksize=kernel, stride=self.rate*self.stride, rate=1, padding='auto')
        raw_w = raw_w.view(raw_int_bs[0], raw_int_bs[1], kernel, kernel, -1)
        raw_w = raw_w.permute(0, 4, 1, 2, 3)    # raw_shape: [N, L, C, k, k]
        raw_w_groups = torch.split(raw_w, 1, dim=0)

        f = F.interpolate(f, scale_factor=1./self.rate, mode='nearest', recompute_scale_factor=False)
        b = F.interpolate(b, scale_factor=1./self.rate, mode='nearest', recompute_scale_factor=False)
        int_fs, int_bs = list(f.size()), list(b.size())   # b*c*h*w
        # split tensors along the batch dimension
        f_groups = torch.split(f, 1, dim=0)
        w = extract_image_patches(b, ksize=self.ksize, stride=self.stride, rate=1, padding='auto')
        w = w.view(int_bs[0], int_bs[1], self.ksize, self.ksize, -1)
        w = w.permute(0, 4, 1, 2, 3)    # w shape: [N, L, C, k, k]
        w_groups = torch.split(w, 1, dim=0)

        # process mask
        if mask is None:
            mask = torch.zeros([int_bs[0], 1, int_bs[2], int_bs[3]], device=device)
        else:
            mask = F.interpolate(mask, scale_factor=1./((2**self.n_down)*self.rate), mode='nearest',
                                 recompute_scale_factor=False)
        int_ms = list(mask.size())
        m = extract_image_patches(mask, ksize=self.ksize, stride=self.stride, rate=1, padding='auto')
        m = m.view(int_ms[0], int_ms[1], self.ksize, self.ksize, -1)
        m = m.permute(0, 4, 1, 2, 3)    # m shape: [N, L, C, k, k]
        m = m[0]    # m shape: [L, C, k, k]
        mm = (torch.mean(m, dim=[1, 2, 3], keepdim=True) == 0.).to(torch.float32)
        mm = mm.permute(1, 0, 2, 3)  # mm shape: [1, L, 1, 1]

        y = []
        scale = self.softmax_scale
        for xi, wi, raw_wi in zip(f_groups, w_groups, raw_w_groups):
            wi = wi[0]  # [L, C, k, k]
            max_wi = torch.sqrt(torch.sum(torch.square(wi), dim=[1, 2, 3], keepdim=True)).clamp_min(1e-4)
            wi_normed = wi / max_wi
            yi = F.conv2d(xi, wi_normed, stride=1, padding=(self.ksize-1)//2)   # [1, L, H, W]
            if self.fuse:
                yi = yi.view(1, 1, int_bs[2]*int_bs[3], int_fs[2]*int_fs[3])
                yi = F.conv2d(yi, self.fuse_weight, stride=1, padding=(self.fuse_k-1)//2)
                yi = yi.contiguous().view(1, int_bs[2], int_bs[3], int_fs[2], int_fs[3])
                yi = yi.permute(0, 2, 1, 4, 3)
                yi = yi.contiguous().view(1, 1, int_bs[2]*int_bs[3], int_fs[2]*int_fs[3])
                yi = F.conv2d(yi, self.fuse_weight, stride=1, padding=(self.fuse_k-1)//2)
                yi = yi.contiguous().view(1, int_bs[3], int_bs[2], int_fs[3], int_fs[2])
                yi = yi.permute(0, 2, 1, 4, 3).contiguous()
            yi = yi.view(1, int_bs[2] * int_bs[3], int_fs[2], int_fs[3])
            # softmax to match
            yi = yi * mm
            yi = F.softmax(yi*scale, dim=1)
            yi = yi * mm  # [1, L, H, W]
            # deconv for patch pasting
            wi_center = raw_wi[0]
            yi = F.conv_transpose2d(yi, wi_center, stride=self.rate, padding=1) / 4.
            y.append(yi)

        y = torch.cat(y, dim=0)  # back to the mini-batch
        y = y.contiguous().view(raw_int_fs)
        return y, None


class FineAttentionBranch(nn.Module):
    """Attention branch (B2) of DeepFill v2's FineGenerator, gated convs replaced by plain convs."""

    def __init__(self, cnum=16):
        super().__init__()
        self.ca_conv1 = nn.Conv2d(3, cnum//2, 5, 1, padding=2)
        self.ca_down_block1 = nn.Conv2d(cnum//2, cnum, 3, 2, padding=1)
        self.ca_down_block2 = nn.Conv2d(cnum, 2*cnum, 3, 2, padding=1)
        self.ca_conv_bn1 = nn.Conv2d(2*cnum, 2*cnum, 3, 1, padding=1)
        self.contextual_attention = ContextualAttention(ksize=3, stride=1, rate=2, fuse_k=3,
                                                        softmax_scale=10, fuse=True, n_down=2)
        self.ca_conv_bn4 = nn.Conv2d(2*cnum, 2*cnum, 3, 1, padding=1)
        self.up = nn.Conv2d(2*cnum, 3, 3, 1, padding=1)

    def forward(self, x, mask):
        x = F.elu(self.ca_conv1(x))
        x = F.elu(self.ca_down_block1(x))
        x = F.elu(self.ca_down_block2(x))
        x = F.relu(self.ca_conv_bn1(x))
        x, offset_flow = self.contextual_attention(x, x, mask)
        x = F.elu(self.ca_conv_bn4(x))
        x = F.interpolate(x, scale_factor=4, mode='nearest')
        return torch.tanh(self.up(x))


def _inputs(b, h, w):
    return (torch.rand(b, 3, h, w) * 2 - 1, (torch.rand(b, 1, h, w) > 0.7).float())


def make_model():
    return FineAttentionBranch().eval()


def example_inputs():
    return _inputs(2, 64, 64)


def other_inputs():
    return [_inputs(3, 48, 80), _inputs(1, 96, 56)]


def probe_inputs():
    return other_inputs()

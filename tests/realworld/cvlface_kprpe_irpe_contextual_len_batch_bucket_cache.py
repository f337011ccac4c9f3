"""CVLface ViT-KPRPE face recognizer: the keypoint relative position encoding goes through the iRPE
`contextual` lookup, which takes the batch as `B = len(x)` for its `.view(B, -1, L_query, L_key)` and caches
the bucket ids on the module (`self._rp_bucket_buf`) and in a module-level dict; the reporter says iRPE
"can not trace keypoints in onnx's trace" and the exported model's features differ from the PyTorch ones.

Source: https://github.com/mk-minchul/CVLface/issues/24
"""
import math

import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "batch"}, "keypoints": {0: "batch"}}
BLIND = "domains-36"


def get_absolute_positions(height, width, dtype, device):
    rows = torch.arange(height, dtype=dtype, device=device).view(
        height, 1).repeat(1, width)
    cols = torch.arange(width, dtype=dtype, device=device).view(
        1, width).repeat(height, 1)
    return torch.stack([rows, cols], 2)


@torch.no_grad()
def piecewise_index(relative_position, alpha, beta, gamma, dtype):
    rp_abs = relative_position.abs()
    mask = rp_abs <= alpha
    not_mask = ~mask
    rp_out = relative_position[not_mask]
    rp_abs_out = rp_abs[not_mask]
    y_out = (torch.sign(rp_out) * (alpha +
                                   torch.log(rp_abs_out / alpha) /
                                   math.log(gamma / alpha) *
                                   (beta - alpha)).round().clip(max=beta)).to(dtype)

    idx = relative_position.clone()
    if idx.dtype in [torch.float32, torch.float64]:
        idx = idx.round().to(dtype)
    idx[not_mask] = y_out
    return idx


@torch.no_grad()
def _rp_2d_product(diff, **kwargs):
    beta_int = int(kwargs['beta'])
    S = 2 * beta_int + 1
    r = piecewise_index(diff[:, :, 0], **kwargs) + beta_int
    c = piecewise_index(diff[:, :, 1], **kwargs) + beta_int
    pid = r * S + c
    return pid


# (method, alpha, beta, gamma) -> (bucket_ids, num_buckets, height, width)
BUCKET_IDS_BUF = dict()


@torch.no_grad()
def get_bucket_ids_2d_without_skip(method, height, width,
                                   alpha, beta, gamma,
                                   dtype=torch.long, device=torch.device('cpu')):
    key = (method, alpha, beta, gamma, dtype, device)
    value = BUCKET_IDS_BUF.get(key, None)
    if value is None or value[-2] < height or value[-1] < width:
        if value is None:
            max_height, max_width = height, width
        else:
            max_height = max(value[-2], height)
            max_width = max(value[-1], width)
        func = _rp_2d_product
        pos = get_absolute_positions(max_height, max_width, dtype, device)
        max_L = max_height * max_width
        pos1 = pos.view((max_L, 1, 2))
        pos2 = pos.view((1, max_L, 2))
        diff = pos1 - pos2
        bucket_ids = func(diff, alpha=alpha, beta=beta,
                          gamma=gamma, dtype=dtype)
        bucket_ids = bucket_ids.view(
            max_height, max_width, max_height, max_width)
        num_buckets = (2 * int(beta) + 1) ** 2
        value = (bucket_ids, num_buckets, height, width)
        BUCKET_IDS_BUF[key] = value
    L = height * width
    bucket_ids = value[0][:height, :width, :height, :width].reshape(L, L)
    num_buckets = value[1]
    return bucket_ids, num_buckets, L


class iRPE(nn.Module):
    # a buffer to store bucket index
    # (key, rp_bucket, _ctx_rp_bucket_flatten)
    _rp_bucket_buf = (None, None, None)

    def __init__(self, num_buckets, alpha=1.9, beta=3.8, gamma=15.2):
        super().__init__()
        self.mode = 'contextual'
        self.transposed = True
        self.method = 3  # METHOD.PRODUCT
        self.num_buckets = num_buckets
        self.alpha, self.beta, self.gamma = alpha, beta, gamma

    def forward(self, x, height=None, width=None):
        rp_bucket, self._ctx_rp_bucket_flatten = \
            self._get_rp_bucket(x, height=height, width=width)
        return self.forward_rpe_transpose(x, rp_bucket)

    def _get_rp_bucket(self, x, height=None, width=None):
        B, H, L, D = x.shape
        device = x.device
        if height is None:
            E = int(math.sqrt(L))
            height = width = E
        key = (height, width, device)
        # use buffer if the spatial shape and device is not changable.
        if self._rp_bucket_buf[0] == key:
            return self._rp_bucket_buf[1:3]

        rp_bucket, num_buckets, _ = get_bucket_ids_2d_without_skip(
            method=self.method, height=height, width=width,
            alpha=self.alpha, beta=self.beta, gamma=self.gamma,
            dtype=torch.long, device=device)
        assert num_buckets == self.num_buckets

        offset = torch.arange(0, L * self.num_buckets, self.num_buckets,
                              dtype=rp_bucket.dtype, device=rp_bucket.device).view(-1, 1)
        _ctx_rp_bucket_flatten = (rp_bucket + offset).flatten()
        self._rp_bucket_buf = (key, rp_bucket, _ctx_rp_bucket_flatten)
        return rp_bucket, _ctx_rp_bucket_flatten

    def forward_rpe_transpose(self, x, rp_bucket):
        B = len(x)  # batch_size
        L_query, L_key = rp_bucket.shape
        return x.flatten(2)[:, :, self._ctx_rp_bucket_flatten]. \
            view(B, -1, L_query, L_key)


@torch.no_grad()
def make_rel_keypoints(keyponints, query):
    seq_length = query.shape[1]
    side = int(math.sqrt(seq_length))
    assert side == math.sqrt(seq_length)
    coord = torch.linspace(0, 1, side+1, device=query.device, dtype=query.dtype)
    coord = (coord[:-1] + coord[1:]) / 2  # get center of patches
    x, y = torch.meshgrid(coord, coord, indexing='ij')
    grid = torch.stack([y, x], dim=-1).reshape(-1, 2).unsqueeze(0).unsqueeze(-2)  # BxNx1x2
    _keyponints = keyponints.unsqueeze(-3)  # Bx1x5x2
    diff = (grid - _keyponints)  # BxNx5x2
    diff = diff.flatten(2)  # BxNx10
    return diff


class Attention(nn.Module):
    def __init__(self, dim, num_heads, num_buckets):
        super().__init__()
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=False)
        self.proj = nn.Linear(dim, dim)
        self.rpe_k = iRPE(num_buckets)

    def forward(self, x, extra_ctx=None):
        batch_size, num_token, embed_dim = x.shape
        qkv = self.qkv(x).reshape(
            batch_size, num_token, 3, self.num_heads, embed_dim // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        q *= self.scale
        attn = (q @ k.transpose(-2, -1))
        ctx = extra_ctx['rel_keypoints']
        attn += self.rpe_k(ctx)
        attn = attn.softmax(dim=-1)
        out = attn @ v
        x = out.transpose(1, 2).reshape(batch_size, num_token, embed_dim)
        return self.proj(x)


class VisionTransformerKPRPE(nn.Module):
    def __init__(self, img_size=16, patch_size=4, dim=32, depth=2, num_heads=2, num_keypoints=5):
        super().__init__()
        self.depth, self.num_heads, self.num_keypoints = depth, num_heads, num_keypoints
        self.num_buckets = (2 * int(2 * 1.9) + 1) ** 2
        self.num_patches = (img_size // patch_size) ** 2
        self.embed_dim = dim
        self.patch_embed = nn.Conv2d(3, dim, patch_size, patch_size)
        self.pos_embed = nn.Parameter(torch.randn(1, self.num_patches, dim) * 0.02)
        self.keypoint_linear = nn.Linear(2 * num_keypoints, self.num_buckets * num_heads * depth)
        self.blocks = nn.ModuleList([Attention(dim, num_heads, self.num_buckets) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.feature = nn.Linear(self.num_patches * dim, 64)

    def forward(self, x, keypoints):
        B = x.shape[0]
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = x + self.pos_embed
        # make_kprpe_input, ctx_type == 'rel_keypoint_splithead_unshared'
        rel_keypoints = make_rel_keypoints(keypoints, x)[:, :, :2 * self.num_keypoints]
        rel_keypoints = self.keypoint_linear(rel_keypoints)  # B H N D
        rel_keypoints = rel_keypoints.view(B, -1, self.num_heads * self.depth, self.num_buckets).transpose(1, 2)
        rel_keypoints = torch.chunk(rel_keypoints, self.depth, dim=1)
        extra_ctx = [{'rel_keypoints': rel_keypoint} for rel_keypoint in rel_keypoints]
        for block_idx, func in enumerate(self.blocks):
            x = x + func(x, extra_ctx=extra_ctx[block_idx])
        x = self.norm(x.float())
        x = torch.reshape(x, (B, self.num_patches * self.embed_dim))
        return self.feature(x)


def make_model():
    return VisionTransformerKPRPE().eval()


def example_inputs():
    return (torch.randn(2, 3, 16, 16), torch.rand(2, 5, 2))


def other_inputs():
    return [(torch.randn(3, 3, 16, 16), torch.rand(3, 5, 2)),
            (torch.randn(1, 3, 16, 16), torch.rand(1, 5, 2))]


def probe_inputs():
    return other_inputs()

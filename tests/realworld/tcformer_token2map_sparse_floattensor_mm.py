"""TCFormer (mmpose) turns its clustered vision tokens back into a feature map with `token2map`,
which builds a `torch.sparse.FloatTensor(coor, value, torch.Size([B * H * W, B * N]))` and
multiplies it with the tokens; converting TCFormer to ONNX fails on the sparse tensor
("Exporting the operator sparse_coo_tensor to ONNX opset version 11/12/13 is not supported").

Source: https://github.com/open-mmlab/mmdeploy/issues/881
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "tokens"}, "idx_token": {0: "batch"}}
BLIND = "operators-29"


def get_grid_index(init_grid_size, map_size, device):
    H_init, W_init = init_grid_size
    H, W = map_size
    idx = torch.arange(H * W, device=device).reshape(1, 1, H, W)
    idx = F.interpolate(idx.float(), [H_init, W_init], mode='nearest').long()
    return idx.flatten()


def token2map(token_dict):
    x = token_dict['x']
    H, W = token_dict['map_size']
    H_init, W_init = token_dict['init_grid_size']
    idx_token = token_dict['idx_token']
    B, N, C = x.shape
    N_init = H_init * W_init
    device = x.device

    if N_init == N and N == H * W:
        # for the initial tokens with grid structure, just reshape
        return x.reshape(B, H, W, C).permute(0, 3, 1, 2).contiguous()

    idx_hw = get_grid_index([H_init, W_init], [H, W],
                            device=device)[None, :].expand(B, -1)
    idx_batch = torch.arange(B, device=device)[:, None].expand(B, N_init)
    value = x.new_ones(B * N_init)

    # use sparse matrix multiplication
    idx_hw = idx_hw + idx_batch * H * W
    idx_tokens = idx_token + idx_batch * N
    coor = torch.stack([idx_hw, idx_tokens], dim=0).reshape(2, B * N_init)

    value = value.detach().to(torch.float32)

    # build a sparse matrix with the shape [B * H * W, B * N]
    A = torch.sparse.FloatTensor(coor, value,
                                 torch.Size([B * H * W, B * N]))

    # normalize the weight for each row
    all_weight = A @ x.new_ones(B * N, 1).type(torch.float32) + 1e-6
    value = value / all_weight[idx_hw.reshape(-1), 0]

    # update the matrix with normalize weight
    A = torch.sparse.FloatTensor(coor, value,
                                 torch.Size([B * H * W, B * N]))

    # sparse matrix multiplication
    x_out = A @ x.reshape(B * N, C).to(torch.float32)  # [B*H*W, C]

    x_out = x_out.type(x.dtype)
    x_out = x_out.reshape(B, H, W, C).permute(0, 3, 1, 2).contiguous()
    return x_out


class TCFormerTokenToMap(nn.Module):
    def __init__(self, dim=16, map_size=(8, 6), init_grid_size=(16, 12)):
        super().__init__()
        self.map_size = map_size
        self.init_grid_size = init_grid_size
        self.dwconv = nn.Conv2d(dim, dim, 3, 1, 1, bias=True, groups=dim)

    def forward(self, x, idx_token):
        token_dict = {
            'x': x,
            'map_size': self.map_size,
            'init_grid_size': self.init_grid_size,
            'idx_token': idx_token,
        }
        feat = token2map(token_dict)
        return self.dwconv(feat)


def make_model():
    return TCFormerTokenToMap()


def _inputs(b, n):
    return (torch.randn(b, n, 16), torch.randint(0, n, (b, 16 * 12)))


def example_inputs():
    return _inputs(2, 40)


def other_inputs():
    return [_inputs(3, 57), _inputs(1, 25)]


def probe_inputs():
    return other_inputs()

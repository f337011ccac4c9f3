"""TabPFN v2 (tabular foundation model) along-row attention calls the shared `scaled_dot_product_attention`
helper. The helper splits the batch into CUDA-grid-sized chunks and guards the sizes with
`torch._check(num_parallel_calls >= 1)` / `torch._check(q_BHSD.shape[0] >= 1)` ("these checks help
torch.compile"). TabPFN's ONNX export uses the TorchScript exporter with dynamic axes. Under that exporter the
traced sizes are tensors, so `torch._check` raises "cond must be a bool". The chunk loop
`for i in range(num_iterations)` over a value computed from the batch size also stops the dynamic batch
from exporting. The "Fix onnx export." commit in PR 1052 made the checks run only under
`torch.compiler.is_compiling()`.

Source: https://github.com/PriorLabs/TabPFN/pull/1052
"""
import torch
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x_BrSE": {0: "batch_rows", 1: "feature_groups"}}
BLIND = "domains-52"

_SDPA_BACKENDS = [
    SDPBackend.FLASH_ATTENTION,
    SDPBackend.EFFICIENT_ATTENTION,
    SDPBackend.CUDNN_ATTENTION,
    SDPBackend.MATH,
]


def gqa_is_supported() -> bool:
    return torch.__version__ >= "2.5"


def scaled_dot_product_attention(q_BSHD, k_BSJD, v_BSJD, _backends_override=None):
    msg = "SDPA expects (B, S, H, D); got tensor of shape"
    assert q_BSHD.dim() == 4, f"{msg} q:{tuple(q_BSHD.shape)}"
    assert k_BSJD.dim() == 4, f"{msg} k:{tuple(k_BSJD.shape)}"
    assert v_BSJD.dim() == 4, f"{msg} v:{tuple(v_BSJD.shape)}"

    q_BHSD = q_BSHD.permute(0, 2, 1, 3)
    k_BJSD = k_BSJD.permute(0, 2, 1, 3)
    v_BJSD = v_BSJD.permute(0, 2, 1, 3)
    num_q_heads = q_BHSD.shape[-3]
    num_kv_heads = k_BJSD.shape[-3]

    dtype_supports_gqa = q_BHSD.dtype in {torch.float16, torch.bfloat16}
    if num_q_heads == num_kv_heads:
        keys = k_BJSD
        values = v_BJSD
        enable_gqa = {}
    elif gqa_is_supported() and dtype_supports_gqa:
        keys = k_BJSD
        values = v_BJSD
        enable_gqa = {"enable_gqa": True}
    else:
        repeat = num_q_heads // num_kv_heads
        keys = k_BJSD.repeat_interleave(repeat, dim=-3)
        values = v_BJSD.repeat_interleave(repeat, dim=-3)
        enable_gqa = {}

    backends = _backends_override if _backends_override is not None else _SDPA_BACKENDS

    num_parallel_calls = q_BHSD.shape[:2].numel()
    torch._check(num_parallel_calls >= 1)  # These checks help torch.compile.
    torch._check(q_BHSD.shape[0] >= 1)
    CUDA_MAX_GRID = 65536
    num_iterations = (num_parallel_calls + CUDA_MAX_GRID - 1) // CUDA_MAX_GRID
    sub_batch = (q_BHSD.shape[0] + num_iterations - 1) // num_iterations

    with sdpa_kernel(backends=backends):
        outputs = []
        for i in range(num_iterations):
            outputs.append(
                torch.nn.functional.scaled_dot_product_attention(
                    q_BHSD[i * sub_batch : (i + 1) * sub_batch].contiguous(),
                    keys[i * sub_batch : (i + 1) * sub_batch].contiguous(),
                    values[i * sub_batch : (i + 1) * sub_batch].contiguous(),
                    attn_mask=None,
                    **enable_gqa,
                )
            )
    output_BHSD = outputs[0] if len(outputs) == 1 else torch.cat(outputs)
    return output_BHSD.permute(0, 2, 1, 3)


class AlongRowAttention(nn.Module):
    """Computes the attention between features of a single row (TabPFN v2)."""

    def __init__(self, embedding_size=32, num_heads=4, head_dim=8):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = head_dim
        no_bias = {"bias": False}
        self.q_projection = nn.Linear(embedding_size, head_dim * num_heads, **no_bias)
        self.k_projection = nn.Linear(embedding_size, head_dim * num_heads, **no_bias)
        self.v_projection = nn.Linear(embedding_size, head_dim * num_heads, **no_bias)
        self.out_projection = nn.Linear(head_dim * num_heads, embedding_size, **no_bias)

    def forward(self, x_BrSE):
        Br, C, _ = x_BrSE.shape
        q_flat_BrCHF = self.q_projection(x_BrSE)
        k_flat_BrCHF = self.k_projection(x_BrSE)
        v_flat_BrCHF = self.v_projection(x_BrSE)
        q_BrCHD = q_flat_BrCHF.view(Br, C, -1, self.head_dim)
        k_BrCHD = k_flat_BrCHF.view(Br, C, -1, self.head_dim)
        v_BrCHD = v_flat_BrCHF.view(Br, C, -1, self.head_dim)

        output_BrHCD = scaled_dot_product_attention(q_BrCHD, k_BrCHD, v_BrCHD)
        output_BrCF = output_BrHCD.reshape(Br, C, self.head_dim * self.num_heads)
        return self.out_projection(output_BrCF)


def make_model():
    return AlongRowAttention().eval()


def example_inputs():
    return (torch.randn(24, 5, 32),)


def other_inputs():
    return [(torch.randn(40, 7, 32),), (torch.randn(6, 3, 32),)]


def probe_inputs():
    return other_inputs()

import torch


class Attn(torch.nn.Module):
    def __init__(self, heads=4, head_dim=8):
        super().__init__()
        self.h, self.d = heads, head_dim
        # learnable additive attention bias (like T5's relative position bias)
        self.bias = torch.nn.Parameter(torch.zeros(heads, 1, 1))

    def forward(self, x):  # x: (B, S, H*D)
        B, S, _ = x.shape
        q = x.view(B, S, self.h, self.d).transpose(1, 2)  # (B, H, S, D), "BSHD" strides
        mask = self.bias.expand(B, self.h, S, S)           # float mask that requires grad
        out = torch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=mask)
        out = out.transpose(1, 2).contiguous()              # (B, S, H, D)
        return out.reshape(B, S, -1)


model = Attn().eval()
x = torch.randn(2, 5, 32)
print(torch.__version__)
ep = torch.export.export(model, (x,))
print("torch.export: OK")
ep.run_decompositions()
print("run_decompositions(): OK")
torch.onnx.export(model, (x,), "/tmp/t5bug/repro.onnx", dynamo=True)
print("torch.onnx.export: OK")

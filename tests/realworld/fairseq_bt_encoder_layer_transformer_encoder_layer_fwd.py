"""fairseq (0.12) transformer encoder exported on its own (`torch.onnx.export(model.encoder, ...)`): a checkpoint
loaded through `_load_from_state_dict` switches every TransformerEncoderLayerBase to the "BetterTransformer"
path, which calls the fused `torch._transformer_encoder_layer_fwd` kernel in eval mode; the export fails with
"UnsupportedOperatorError: Exporting the operator ::_transformer_encoder_layer_fwd to ONNX opset".

Source: https://github.com/pytorch/pytorch/issues/121109
"""
import math

import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"src_tokens": {0: "batch", 1: "src_len"}}
BLIND = "operators-15"


class MultiheadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.k_proj = nn.Linear(embed_dim, embed_dim)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)


class TransformerEncoderLayerBase(nn.Module):
    def __init__(self, embed_dim=32, ffn_embed_dim=64, attention_heads=4):
        super().__init__()
        self.embed_dim = embed_dim
        self.self_attn = MultiheadAttention(embed_dim, attention_heads)
        self.self_attn_layer_norm = nn.LayerNorm(embed_dim)
        self.fc1 = nn.Linear(embed_dim, ffn_embed_dim)
        self.fc2 = nn.Linear(ffn_embed_dim, embed_dim)
        self.final_layer_norm = nn.LayerNorm(embed_dim)
        self.num_heads = attention_heads
        self.load_to_BT = False
        self.ever_training = False
        # For BT, we need continuous mem
        self.in_proj_weight = torch.nn.Parameter(
            torch.zeros(self.self_attn.q_proj.weight.shape[0] * 3, self.self_attn.q_proj.weight.shape[1])
        )
        self.in_proj_bias = torch.nn.Parameter(torch.zeros(self.self_attn.q_proj.bias.shape[0] * 3))
        self.out_proj_weight = torch.nn.Parameter(torch.zeros(self.self_attn.out_proj.weight.shape))
        self.out_proj_bias = torch.nn.Parameter(torch.zeros(self.self_attn.out_proj.bias.shape))
        self.fc1_weight = torch.nn.Parameter(torch.zeros(self.fc1.weight.shape))
        self.fc1_bias = torch.nn.Parameter(torch.zeros(self.fc1.bias.shape))
        self.fc2_weight = torch.nn.Parameter(torch.zeros(self.fc2.weight.shape))
        self.fc2_bias = torch.nn.Parameter(torch.zeros(self.fc2.bias.shape))
        self.activation_relu_or_gelu = 1
        self.can_use_fastpath = True
        self.BT_version = True

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        self.load_to_BT = True
        old_name = prefix + "self_attn."
        state_dict[prefix + "in_proj_weight"] = torch.cat(
            (state_dict[old_name + "q_proj.weight"], state_dict[old_name + "k_proj.weight"], state_dict[old_name + "v_proj.weight"]), dim=0
        )
        state_dict[prefix + "in_proj_bias"] = torch.cat(
            (state_dict[old_name + "q_proj.bias"], state_dict[old_name + "k_proj.bias"], state_dict[old_name + "v_proj.bias"]), dim=0
        )
        state_dict[prefix + "out_proj_weight"] = state_dict[old_name + "out_proj.weight"]
        state_dict[prefix + "out_proj_bias"] = state_dict[old_name + "out_proj.bias"]
        state_dict[prefix + "fc1_weight"] = state_dict[prefix + "fc1.weight"]
        state_dict[prefix + "fc1_bias"] = state_dict[prefix + "fc1.bias"]
        state_dict[prefix + "fc2_weight"] = state_dict[prefix + "fc2.weight"]
        state_dict[prefix + "fc2_bias"] = state_dict[prefix + "fc2.bias"]
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)

    def forward(self, x, encoder_padding_mask=None, attn_mask=None):
        if self.training:
            self.ever_training = True
        if (
            self.BT_version
            and x.dim() == 3
            and self.load_to_BT
            and self.can_use_fastpath
            and not self.training
            and not self.ever_training
        ):
            # assume is Batch first and nested tensor
            output = torch._transformer_encoder_layer_fwd(
                x,
                self.embed_dim,
                self.num_heads,
                self.in_proj_weight,
                self.in_proj_bias,
                self.out_proj_weight,
                self.out_proj_bias,
                self.activation_relu_or_gelu == 2,
                False,  # norm_first, currently not supported
                self.self_attn_layer_norm.eps,
                self.self_attn_layer_norm.weight,
                self.self_attn_layer_norm.bias,
                self.final_layer_norm.weight,
                self.final_layer_norm.bias,
                self.fc1_weight,
                self.fc1_bias,
                self.fc2_weight,
                self.fc2_bias,
                encoder_padding_mask if encoder_padding_mask is not None else attn_mask,
            )
            return output
        raise NotImplementedError("only the inference (BT) path is kept here")


class TransformerEncoder(nn.Module):
    def __init__(self, vocab=100, embed_dim=32, layers=2):
        super().__init__()
        self.padding_idx = 1
        self.embed_tokens = nn.Embedding(vocab, embed_dim, padding_idx=self.padding_idx)
        self.embed_scale = math.sqrt(embed_dim)
        self.layers = nn.ModuleList([TransformerEncoderLayerBase(embed_dim) for _ in range(layers)])

    def forward(self, src_tokens):
        x = self.embed_scale * self.embed_tokens(src_tokens)
        # B x T x C -> T x B x C
        x = x.transpose(0, 1)
        layer = self.layers[0]
        BT_flag = False
        if x.dim() == 3 and layer.load_to_BT and layer.can_use_fastpath and not layer.training:
            # Batch first can not be justified but needs user to make sure
            x = x.transpose(0, 1)
            BT_flag = True
        for layer in self.layers:
            x = layer(x, encoder_padding_mask=None)
        if BT_flag:
            x = x.transpose(0, 1)
        return x


def make_model():
    model = TransformerEncoder()
    # fairseq loads the checkpoint (q/k/v_proj weights), which flips load_to_BT on every layer
    model.load_state_dict(model.state_dict())
    return model.eval()


def example_inputs():
    return (torch.randint(2, 100, (2, 9)),)


def other_inputs():
    return [(torch.randint(2, 100, (3, 13)),), (torch.randint(2, 100, (1, 5)),)]


def probe_inputs():
    return other_inputs()

"""fairseq Wav2Vec2Model.extract_features exported to ONNX with (source, padding_mask): forward recomputes the frame
padding mask under `if padding_mask is not None and padding_mask.any()` (else None) and returns the features_only
dict {"x", "padding_mask", "features", "layer_results": [(x, z=None, lr), ...]} (None entries when nothing is padded,
as in the example input here); the report's export dies in _jit_pass_onnx_assign_output_shape with
"RuntimeError: ArrayRef: invalid index Index = 3; Length = 3".

Source: https://github.com/pytorch/pytorch/issues/80130
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"source": {0: "batch", 1: "samples"}, "padding_mask": {0: "batch", 1: "samples"}}
BLIND = "domains-29"

CONV_FEATURE_LAYERS = "[(32, 10, 5), (32, 3, 2), (32, 2, 2)]"


class ConvFeatureExtractionModel(nn.Module):
    def __init__(self, conv_layers, conv_bias=False):
        super().__init__()
        in_d = 1
        self.conv_layers = nn.ModuleList()
        for i, (dim, k, stride) in enumerate(conv_layers):
            self.conv_layers.append(nn.Sequential(nn.Conv1d(in_d, dim, k, stride=stride, bias=conv_bias), nn.GELU()))
            in_d = dim

    def forward(self, x):
        # BxT -> BxCxT
        x = x.unsqueeze(1)
        for conv in self.conv_layers:
            x = conv(x)
        return x


class MultiheadAttention(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.scaling = self.head_dim ** -0.5
        self.k_proj = nn.Linear(embed_dim, embed_dim)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True):
        tgt_len, bsz, embed_dim = query.size()
        q = self.q_proj(query) * self.scaling
        k = self.k_proj(key)
        v = self.v_proj(value)
        q = q.contiguous().view(tgt_len, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        k = k.contiguous().view(-1, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        v = v.contiguous().view(-1, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        src_len = k.size(1)
        attn_weights = torch.bmm(q, k.transpose(1, 2))
        if key_padding_mask is not None:
            attn_weights = attn_weights.view(bsz, self.num_heads, tgt_len, src_len)
            attn_weights = attn_weights.masked_fill(key_padding_mask.unsqueeze(1).unsqueeze(2).to(torch.bool),
                                                    float("-inf"))
            attn_weights = attn_weights.view(bsz * self.num_heads, tgt_len, src_len)
        attn_probs = F.softmax(attn_weights, dim=-1)
        attn = torch.bmm(attn_probs, v)
        attn = attn.transpose(0, 1).contiguous().view(tgt_len, bsz, embed_dim)
        attn = self.out_proj(attn)
        attn_weights = None
        if need_weights:
            attn_weights = attn_probs.view(bsz, self.num_heads, tgt_len, src_len).mean(dim=1)
        return attn, attn_weights


class TransformerSentenceEncoderLayer(nn.Module):
    def __init__(self, embedding_dim=32, num_heads=4):
        super().__init__()
        self.self_attn = MultiheadAttention(embedding_dim, num_heads)
        self.self_attn_layer_norm = nn.LayerNorm(embedding_dim)
        self.fc1 = nn.Linear(embedding_dim, 64)
        self.fc2 = nn.Linear(64, embedding_dim)
        self.final_layer_norm = nn.LayerNorm(embedding_dim)

    def forward(self, x, self_attn_padding_mask=None, need_weights=False):
        residual = x
        x, attn = self.self_attn(query=x, key=x, value=x, key_padding_mask=self_attn_padding_mask,
                                 need_weights=need_weights)
        x = self.self_attn_layer_norm(residual + x)
        residual = x
        x = self.fc2(F.gelu(self.fc1(x)))
        layer_result = x
        x = self.final_layer_norm(residual + x)
        return x, (attn, layer_result)


class TransformerEncoder(nn.Module):
    def __init__(self, embedding_dim=32, layers=2):
        super().__init__()
        self.pos_conv = nn.Conv1d(embedding_dim, embedding_dim, kernel_size=5, padding=2, groups=4)
        self.layer_norm = nn.LayerNorm(embedding_dim)
        self.layers = nn.ModuleList([TransformerSentenceEncoderLayer(embedding_dim) for _ in range(layers)])

    def forward(self, x, padding_mask=None, layer=None):
        if padding_mask is not None:
            x[padding_mask] = 0
        x_conv = self.pos_conv(x.transpose(1, 2)).transpose(1, 2)
        x = self.layer_norm(x + x_conv)
        # B x T x C -> T x B x C
        x = x.transpose(0, 1)
        layer_results = []
        for i, layer in enumerate(self.layers):
            x, (z, lr) = layer(x, self_attn_padding_mask=padding_mask, need_weights=False)
            layer_results.append((x, z, lr))
        x = x.transpose(0, 1)
        return x, layer_results


class Wav2Vec2Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.feature_extractor = ConvFeatureExtractionModel(eval(CONV_FEATURE_LAYERS))
        self.layer_norm = nn.LayerNorm(32)
        self.encoder = TransformerEncoder(32)

    def _get_feat_extract_output_lengths(self, input_lengths: torch.LongTensor):
        def _conv_out_length(input_length, kernel_size, stride):
            return torch.floor((input_length - kernel_size) / stride + 1)

        conv_cfg_list = eval(CONV_FEATURE_LAYERS)
        for i in range(len(conv_cfg_list)):
            input_lengths = _conv_out_length(input_lengths, conv_cfg_list[i][1], conv_cfg_list[i][2])
        return input_lengths.to(torch.long)

    def forward(self, source, padding_mask=None, mask=False, features_only=True, layer=None):
        features = self.feature_extractor(source)
        features = features.transpose(1, 2)
        features = self.layer_norm(features)
        unmasked_features = features.clone()

        if padding_mask is not None and padding_mask.any():
            input_lengths = (1 - padding_mask.long()).sum(-1)
            # apply conv formula to get real output_lengths
            output_lengths = self._get_feat_extract_output_lengths(input_lengths)
            padding_mask = torch.zeros(features.shape[:2], dtype=features.dtype, device=features.device)
            # these two operations makes sure that all values
            # before the output lengths indices are attended to
            padding_mask[(torch.arange(padding_mask.shape[0], device=padding_mask.device), output_lengths - 1)] = 1
            padding_mask = (1 - padding_mask.flip([-1]).cumsum(-1).flip([-1])).bool()
        else:
            padding_mask = None

        x = features
        x, layer_results = self.encoder(x, padding_mask=padding_mask, layer=layer)

        if features_only:
            return {
                "x": x,
                "padding_mask": padding_mask,
                "features": unmasked_features,
                "layer_results": layer_results,
            }

    def extract_features(self, source, padding_mask, mask=False, layer=None):
        res = self.forward(source, padding_mask, mask=mask, features_only=True, layer=layer)
        return res


def make_model():
    return Wav2Vec2Model().eval()


def _batch(lengths, total):
    source = torch.randn(len(lengths), total)
    padding_mask = torch.zeros(len(lengths), total, dtype=torch.bool)
    for i, n in enumerate(lengths):
        padding_mask[i, n:] = True
        source[i, n:] = 0.0
    return source, padding_mask


def example_inputs():
    return _batch([1600, 1600], 1600)


def other_inputs():
    return [_batch([2400, 2000, 1800], 2400), _batch([1000, 1000], 1000)]


def probe_inputs():
    return other_inputs()

"""fairseq HuBERT `extract_features(source, padding_mask, output_layer=12)` wrapped in an adapter and exported to
ONNX: the sample-level padding mask is reduced to frames in `forward_padding_mask` and the transformer encoder zeroes
padded frames with `index_put(x, padding_mask, 0)` (`tensor[indices] = value` with a (B, T) bool mask on a (B, T, C)
tensor); the exported model fails in onnxruntime at the encoder's Where node ("condition operand cannot broadcast").

Source: https://github.com/facebookresearch/fairseq/issues/5596
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"feats": {0: "batch", 1: "samples"}, "padding_mask": {0: "batch", 1: "samples"}}
BLIND = "domains-11"


def index_put(tensor, indices, value):
    tensor[indices] = value
    return tensor


class ConvFeatureExtractionModel(nn.Module):
    def __init__(self, conv_layers=((32, 10, 5), (32, 3, 2), (32, 2, 2))):
        super().__init__()
        in_d = 1
        self.conv_layers = nn.ModuleList()
        for i, (dim, k, stride) in enumerate(conv_layers):
            norm = nn.GroupNorm(dim, dim, affine=True) if i == 0 else nn.Identity()
            self.conv_layers.append(nn.Sequential(nn.Conv1d(in_d, dim, k, stride=stride, bias=False), nn.Dropout(0.0), norm, nn.GELU()))
            in_d = dim

    def forward(self, x):
        x = x.unsqueeze(1)  # BxT -> BxCxT
        for conv in self.conv_layers:
            x = conv(x)
        return x


class SamePad(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.remove = 1 if kernel_size % 2 == 0 else 0

    def forward(self, x):
        if self.remove > 0:
            x = x[:, :, : -self.remove]
        return x


class TransformerSentenceEncoderLayer(nn.Module):
    def __init__(self, embedding_dim=32, num_attention_heads=4, ffn_embedding_dim=64):
        super().__init__()
        self.num_heads = num_attention_heads
        self.in_proj = nn.Linear(embedding_dim, 3 * embedding_dim)
        self.out_proj = nn.Linear(embedding_dim, embedding_dim)
        self.self_attn_layer_norm = nn.LayerNorm(embedding_dim)
        self.fc1 = nn.Linear(embedding_dim, ffn_embedding_dim)
        self.fc2 = nn.Linear(ffn_embedding_dim, embedding_dim)
        self.final_layer_norm = nn.LayerNorm(embedding_dim)

    def forward(self, x, self_attn_padding_mask=None):
        tgt_len, bsz, embed_dim = x.size()
        head_dim = embed_dim // self.num_heads
        residual = x
        q, k, v = self.in_proj(x).chunk(3, dim=-1)
        q = q.contiguous().view(tgt_len, bsz * self.num_heads, head_dim).transpose(0, 1) * head_dim ** -0.5
        k = k.contiguous().view(-1, bsz * self.num_heads, head_dim).transpose(0, 1)
        v = v.contiguous().view(-1, bsz * self.num_heads, head_dim).transpose(0, 1)
        attn_weights = torch.bmm(q, k.transpose(1, 2))
        if self_attn_padding_mask is not None:
            attn_weights = attn_weights.view(bsz, self.num_heads, tgt_len, -1)
            attn_weights = attn_weights.masked_fill(self_attn_padding_mask.unsqueeze(1).unsqueeze(2).to(torch.bool), float("-inf"))
            attn_weights = attn_weights.view(bsz * self.num_heads, tgt_len, -1)
        attn = torch.bmm(F.softmax(attn_weights, dim=-1), v)
        attn = attn.transpose(0, 1).contiguous().view(tgt_len, bsz, embed_dim)
        x = self.self_attn_layer_norm(residual + self.out_proj(attn))
        residual = x
        x = self.fc2(F.gelu(self.fc1(x)))
        x = self.final_layer_norm(residual + x)
        return x


class TransformerEncoder(nn.Module):
    def __init__(self, embedding_dim=32, conv_pos=16, conv_pos_groups=4, layers=2):
        super().__init__()
        self.pos_conv = nn.Sequential(
            nn.Conv1d(embedding_dim, embedding_dim, kernel_size=conv_pos, padding=conv_pos // 2, groups=conv_pos_groups),
            SamePad(conv_pos), nn.GELU())
        self.layers = nn.ModuleList([TransformerSentenceEncoderLayer(embedding_dim) for _ in range(layers)])
        self.layer_norm = nn.LayerNorm(embedding_dim)

    def extract_features(self, x, padding_mask=None, tgt_layer=None):
        if padding_mask is not None:
            x = index_put(x, padding_mask, 0)
        x_conv = self.pos_conv(x.transpose(1, 2))
        x_conv = x_conv.transpose(1, 2)
        x = x + x_conv
        x = self.layer_norm(x)
        x = x.transpose(0, 1)  # B x T x C -> T x B x C
        r = None
        for i, layer in enumerate(self.layers):
            x = layer(x, self_attn_padding_mask=padding_mask)
            if i == tgt_layer:
                r = x
                break
        if r is not None:
            x = r
        return x.transpose(0, 1)

    def forward(self, x, padding_mask=None, layer=None):
        return self.extract_features(x, padding_mask, layer), None


class HubertModel(nn.Module):
    def __init__(self, embed=32, encoder_embed_dim=32):
        super().__init__()
        self.feature_extractor = ConvFeatureExtractionModel()
        self.layer_norm = nn.LayerNorm(embed)
        self.post_extract_proj = nn.Linear(embed, encoder_embed_dim)
        self.dropout_input = nn.Dropout(0.1)
        self.encoder = TransformerEncoder(encoder_embed_dim)

    def forward_padding_mask(self, features, padding_mask):
        extra = padding_mask.size(1) % features.size(1)
        if extra > 0:
            padding_mask = padding_mask[:, :-extra]
        padding_mask = padding_mask.view(padding_mask.size(0), features.size(1), -1)
        padding_mask = padding_mask.all(-1)
        return padding_mask

    def forward(self, source, padding_mask=None, mask=False, features_only=True, output_layer=None):
        features = self.feature_extractor(source)
        features = features.transpose(1, 2)
        features = self.layer_norm(features)
        if padding_mask is not None:
            padding_mask = self.forward_padding_mask(features, padding_mask)
        features = self.post_extract_proj(features)
        features = self.dropout_input(features)
        x = features
        x, _ = self.encoder(x, padding_mask=padding_mask, layer=None if output_layer is None else output_layer - 1)
        return {"x": x, "padding_mask": padding_mask, "features": features}

    def extract_features(self, source, padding_mask=None, mask=False, ret_conv=False, output_layer=None):
        res = self.forward(source, padding_mask=padding_mask, mask=mask, features_only=True, output_layer=output_layer)
        feature = res["features"] if ret_conv else res["x"]
        return feature, res["padding_mask"]


class HuberAdapter(torch.nn.Module):
    def __init__(self, model):
        super(HuberAdapter, self).__init__()
        self.model = model

    def forward(self, feats, padding_mask):
        inputs = {
            "source": feats,
            "padding_mask": padding_mask,
            "output_layer": 12
        }
        return self.model.extract_features(**inputs)


def make_model():
    return HuberAdapter(HubertModel()).eval()


def _batch(b, samples):
    feats = torch.randn(b, samples)
    padding_mask = torch.zeros(b, samples, dtype=torch.bool)
    padding_mask[0, samples * 3 // 5:] = True
    return feats, padding_mask


def example_inputs():
    return _batch(2, 4000)


def other_inputs():
    return [_batch(3, 5600), _batch(1, 3010)]


def probe_inputs():
    return other_inputs()

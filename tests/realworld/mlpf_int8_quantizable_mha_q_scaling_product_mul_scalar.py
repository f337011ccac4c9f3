"""MLPF (particle-flow reconstruction, jpata/particleflow) transformer with eager-mode int8 post-training
quantization: QuantStub per input feature, SelfAttentionLayer blocks built on `torch.nn.MultiheadAttention` plus
`FloatFunctional` residual adds, `prepare` -> calibrate -> `convert`.  The notebook notes that the int8 ONNX
export "does not work with MultiheadAttention because ... it uses q_scaling_product.mul_scalar which is not
supported in ONNX opset 17" (the TorchScript exporter has no symbolic for `quantized::mul_scalar`, which the
converted quantizable MHA calls), and that the dynamo export of the int8 model "does not work" either; the
author copied the quantizable MHA and deleted q_scaling_product.  (Trimmed to one id branch and one attention
layer; `transform_batch` and the regression heads are left out; the padding mask, which the layers accept but
do not use, is built inside forward as the notebook builds it, `X[:, :, 0] != 0`; the qconfig is the default one of
the active quantized engine rather than 'onednn'.)

Source: https://github.com/jpata/particleflow/blob/e1b439a1edeef06ddf1c822d7797480a43fd7d1c/notebooks/clic/mlpf-pytorch-transformer-standalone.ipynb
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"X_features": {0: "batch", 1: "num_elems"}}
BLIND = "operators-42"

INPUT_DIM = 17
NUM_CLASSES = 6


class QuantizeFeaturesStub(torch.ao.quantization.QuantStub):
    def __init__(self, num_feats):
        super().__init__()
        self.num_feats = num_feats
        self.quants = torch.nn.ModuleList()
        for ifeat in range(self.num_feats):
            self.quants.append(torch.ao.quantization.QuantStub())

    def forward(self, x):
        return torch.cat([self.quants[ifeat](x[..., ifeat:ifeat+1]) for ifeat in range(self.num_feats)], axis=-1)


class SelfAttentionLayer(nn.Module):
    def __init__(self, embedding_dim=128, num_heads=2, width=128, dropout_mha=0.1, dropout_ff=0.1,
                 attention_type="efficient"):
        super(SelfAttentionLayer, self).__init__()

        self.attention_type = attention_type
        self.act = nn.ReLU
        self.mha = torch.nn.MultiheadAttention(embedding_dim, num_heads, dropout=dropout_mha, batch_first=True)
        self.norm0 = torch.nn.LayerNorm(embedding_dim)
        self.norm1 = torch.nn.LayerNorm(embedding_dim)
        self.seq = torch.nn.Sequential(
            nn.Linear(embedding_dim, width), self.act(), nn.Linear(width, embedding_dim), self.act()
        )
        self.dropout = torch.nn.Dropout(dropout_ff)

        self.add0 = torch.ao.nn.quantized.FloatFunctional()
        self.add1 = torch.ao.nn.quantized.FloatFunctional()
        self.mul = torch.ao.nn.quantized.FloatFunctional()

    def forward(self, x, mask):
        mha_out = self.mha(x, x, x, need_weights=False)[0]
        x = self.add0.add(x, mha_out)
        x = self.norm0(x)
        x = self.add1.add(x, self.seq(x))
        x = self.norm1(x)
        x = self.dropout(x)
        # x = self.mul.mul(x, mask.unsqueeze(-1))
        return x


def ffn(input_dim, output_dim, width, act, dropout):
    return nn.Sequential(
        nn.Linear(input_dim, width),
        act(),
        torch.nn.LayerNorm(width),
        nn.Dropout(dropout),
        nn.Linear(width, output_dim),
    )


class MLPF(nn.Module):
    def __init__(self, input_dim=16, num_classes=6, num_convs=1, dropout_ff=0.0, dropout_conv_id_mha=0.0,
                 dropout_conv_id_ff=0.0, num_heads=2, head_dim=8, elemtypes=[0, 1, 2]):
        super(MLPF, self).__init__()
        self.input_dim = input_dim
        self.act = nn.ReLU
        self.elemtypes = elemtypes
        embedding_dim = num_heads * head_dim
        width = num_heads * head_dim

        self.nn0_id = ffn(self.input_dim, embedding_dim, width, self.act, dropout_ff)
        self.conv_id = nn.ModuleList()
        for i in range(num_convs):
            self.conv_id.append(
                SelfAttentionLayer(embedding_dim=embedding_dim, num_heads=num_heads, width=width,
                                   dropout_mha=dropout_conv_id_mha, dropout_ff=dropout_conv_id_ff)
            )
        decoding_dim = self.input_dim + embedding_dim
        self.nn_id = ffn(decoding_dim, num_classes, width, self.act, dropout_ff)

        self.quant = QuantizeFeaturesStub(self.input_dim + len(self.elemtypes))
        self.dequant_id = torch.ao.quantization.DeQuantStub()

    def forward(self, X_features):
        mask = X_features[:, :, 0] != 0
        Xfeat_normed = self.quant(X_features)

        embeddings_id = []
        embedding_id = self.nn0_id(Xfeat_normed)
        for num, conv in enumerate(self.conv_id):
            conv_input = embedding_id if num == 0 else embeddings_id[-1]
            out_padded = conv(conv_input, mask)
            embeddings_id.append(out_padded)

        final_embedding_id = torch.cat([Xfeat_normed] + [embeddings_id[-1]], axis=-1)
        preds_id = self.nn_id(final_embedding_id)
        preds_id = self.dequant_id(preds_id)
        return preds_id


def make_model():
    model = MLPF(input_dim=INPUT_DIM, num_classes=NUM_CLASSES).eval()
    model.qconfig = torch.ao.quantization.get_default_qconfig(torch.backends.quantized.engine)
    model_prepared = torch.ao.quantization.prepare(model)
    # calibrate on data
    for _ in range(8):
        model_prepared(torch.randn(4, 50, INPUT_DIM))
    model_int8 = torch.ao.quantization.convert(model_prepared)
    return model_int8


def example_inputs():
    return (torch.randn(4, 64, INPUT_DIM),)


def other_inputs():
    return [(torch.randn(2, 40, INPUT_DIM),), (torch.randn(3, 96, INPUT_DIM),)]


def probe_inputs():
    return other_inputs()

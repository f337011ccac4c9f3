"""A subway-headway forecasting service exports a pytorch-forecasting TemporalFusionTransformer through a
`TFTOnnxWrapper` (flat tensors in, `output.prediction` out). Its export script forces `dynamo=False` because
"the dynamo-based ONNX exporter ... cannot handle TFT's data-dependent control flow (e.g.
`int(encoder_lengths.max())`)": TFT.forward slices the encoder/decoder parts with that Python int, and its
LSTM packs sequences by `lengths` (min/max checks, `pack_padded_sequence(lengths.cpu())`). Trimmed TFT below
(variable selection / GRNs reduced to small layers; the forward keeps the library's structure).

Source: https://github.com/DanHerman212/headway-prediction/blob/8abff1b03a2292497b662813a1de52c817a0bb72/build/lib/mlops_pipeline/src/serving/onnx_export.py
"""
from collections import namedtuple

import torch
import torch.nn as nn
from torch.nn.utils import rnn

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {
    "encoder_cat": {0: "batch"}, "encoder_cont": {0: "batch"}, "decoder_cat": {0: "batch"},
    "decoder_cont": {0: "batch"}, "encoder_lengths": {0: "batch"}, "decoder_lengths": {0: "batch"},
    "target_scale": {0: "batch"},
}
BLIND = "domains-45"


def create_mask(size, lengths, inverse=False):
    if inverse:  # return where values are
        return torch.arange(size, device=lengths.device).unsqueeze(0) < lengths.unsqueeze(-1)
    else:  # return where no values are
        return torch.arange(size, device=lengths.device).unsqueeze(0) >= lengths.unsqueeze(-1)


class LSTM(nn.LSTM):
    """LSTM that can handle zero-length sequences (pytorch_forecasting.models.nn.rnn)"""

    def init_hidden_state(self, x):
        batch_size = x.size(0) if self.batch_first else x.size(1)
        hidden = torch.zeros((self.num_layers, batch_size, self.hidden_size), device=x.device, dtype=x.dtype)
        return hidden, torch.zeros_like(hidden)

    def forward(self, x, hx=None, lengths=None, enforce_sorted=True):
        if isinstance(x, rnn.PackedSequence) or lengths is None:
            return super().forward(x, hx=hx)
        else:
            min_length = lengths.min()
            max_length = lengths.max()
            assert min_length >= 0, "sequence lengths must be great equals 0"

            if max_length == 0:
                hidden_state = self.init_hidden_state(x)
                out = torch.zeros(lengths.size(0), x.size(1), self.hidden_size, dtype=x.dtype, device=x.device)
                return out, hidden_state
            else:
                pack_lengths = lengths.where(lengths > 0, torch.ones_like(lengths))
                packed_out, hidden_state = super().forward(
                    rnn.pack_padded_sequence(x, pack_lengths.cpu(), enforce_sorted=enforce_sorted, batch_first=self.batch_first),
                    hx=hx,
                )
                out, _ = rnn.pad_packed_sequence(packed_out, batch_first=self.batch_first)
                return out, hidden_state


class VariableSelection(nn.Module):
    def __init__(self, input_sizes, hidden_size):
        super().__init__()
        self.prescalers = nn.ModuleDict({n: nn.Linear(s, hidden_size) for n, s in input_sizes.items()})
        self.flattened_grn = nn.Linear(sum(input_sizes.values()), len(input_sizes))

    def forward(self, x, context=None):
        weights = torch.softmax(self.flattened_grn(torch.cat(list(x.values()), dim=-1)), dim=-1)
        var_outputs = torch.stack([self.prescalers[n](v) for n, v in x.items()], dim=-1)
        return (var_outputs * weights.unsqueeze(-2)).sum(dim=-1) + context, weights


class GateAddNorm(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.fc = nn.Linear(hidden_size, hidden_size * 2)
        self.norm = nn.LayerNorm(hidden_size)

    def forward(self, x, skip):
        return self.norm(nn.functional.glu(self.fc(x), dim=-1) + skip)


class TemporalFusionTransformer(nn.Module):
    def __init__(self, hidden_size=16, n_stations=10, x_reals=("service_headway", "travel_time", "relative_time_idx")):
        super().__init__()
        self.hidden_size, self.lstm_layers = hidden_size, 1
        self.x_reals = list(x_reals)
        self.input_embeddings = nn.ModuleDict({"station": nn.Embedding(n_stations, 4)})
        sizes = {"station": 4, **{r: 1 for r in self.x_reals}}
        self.encoder_variables = list(sizes)
        self.decoder_variables = ["station", "relative_time_idx"]
        self.static_context_variable_selection = nn.Linear(hidden_size, hidden_size)
        self.encoder_variable_selection = VariableSelection(sizes, hidden_size)
        self.decoder_variable_selection = VariableSelection({n: sizes[n] for n in self.decoder_variables}, hidden_size)
        self.static_context_initial_hidden_lstm = nn.Linear(hidden_size, hidden_size)
        self.static_context_initial_cell_lstm = nn.Linear(hidden_size, hidden_size)
        self.lstm_encoder = LSTM(hidden_size, hidden_size, batch_first=True)
        self.lstm_decoder = LSTM(hidden_size, hidden_size, batch_first=True)
        self.post_lstm_gate_encoder = GateAddNorm(hidden_size)
        self.post_lstm_gate_decoder = GateAddNorm(hidden_size)
        self.multihead_attn = nn.MultiheadAttention(hidden_size, 1, batch_first=True)
        self.output_layer = nn.Linear(hidden_size, 3)  # P10 / P50 / P90

    @property
    def dtype(self):
        return self.output_layer.weight.dtype

    @property
    def device(self):
        return self.output_layer.weight.device

    def expand_static_context(self, context, timesteps):
        return context[:, None].expand(-1, timesteps, -1)

    def get_attention_mask(self, encoder_lengths, decoder_lengths):
        decoder_length = decoder_lengths.max()
        attend_step = torch.arange(decoder_length, device=self.device)
        predict_step = torch.arange(0, decoder_length, device=self.device)[:, None]
        decoder_mask = (attend_step >= predict_step).unsqueeze(0).expand(encoder_lengths.size(0), -1, -1)
        encoder_mask = create_mask(encoder_lengths.max(), encoder_lengths).unsqueeze(1).expand(-1, decoder_length, -1)
        return torch.cat((encoder_mask, decoder_mask), dim=2)

    def forward(self, x):
        encoder_lengths = x["encoder_lengths"]
        decoder_lengths = x["decoder_lengths"]
        x_cat = torch.cat([x["encoder_cat"], x["decoder_cat"]], dim=1)  # concatenate in time dimension
        x_cont = torch.cat([x["encoder_cont"], x["decoder_cont"]], dim=1)  # concatenate in time dimension
        timesteps = x_cont.size(1)  # encode + decode length
        max_encoder_length = int(encoder_lengths.max())
        input_vectors = {"station": self.input_embeddings["station"](x_cat[..., 0])}
        input_vectors.update({name: x_cont[..., idx].unsqueeze(-1) for idx, name in enumerate(self.x_reals)})

        static_embedding = torch.zeros((x_cont.size(0), self.hidden_size), dtype=self.dtype, device=self.device)
        static_context_variable_selection = self.expand_static_context(
            self.static_context_variable_selection(static_embedding), timesteps
        )
        embeddings_varying_encoder = {name: input_vectors[name][:, :max_encoder_length] for name in self.encoder_variables}
        embeddings_varying_encoder, encoder_sparse_weights = self.encoder_variable_selection(
            embeddings_varying_encoder, static_context_variable_selection[:, :max_encoder_length]
        )
        embeddings_varying_decoder = {name: input_vectors[name][:, max_encoder_length:] for name in self.decoder_variables}
        embeddings_varying_decoder, decoder_sparse_weights = self.decoder_variable_selection(
            embeddings_varying_decoder, static_context_variable_selection[:, max_encoder_length:]
        )

        input_hidden = self.static_context_initial_hidden_lstm(static_embedding).expand(self.lstm_layers, -1, -1)
        input_cell = self.static_context_initial_cell_lstm(static_embedding).expand(self.lstm_layers, -1, -1)
        encoder_output, (hidden, cell) = self.lstm_encoder(
            embeddings_varying_encoder, (input_hidden, input_cell), lengths=encoder_lengths, enforce_sorted=False
        )
        decoder_output, _ = self.lstm_decoder(
            embeddings_varying_decoder, (hidden, cell), lengths=decoder_lengths, enforce_sorted=False
        )
        lstm_output_encoder = self.post_lstm_gate_encoder(encoder_output, embeddings_varying_encoder)
        lstm_output_decoder = self.post_lstm_gate_decoder(decoder_output, embeddings_varying_decoder)
        attn_input = torch.cat([lstm_output_encoder, lstm_output_decoder], dim=1)

        attn_output, attn_output_weights = self.multihead_attn(
            attn_input[:, max_encoder_length:], attn_input, attn_input,  # query only for predictions
            attn_mask=self.get_attention_mask(encoder_lengths=encoder_lengths, decoder_lengths=decoder_lengths),
        )
        output = self.output_layer(attn_output + attn_input[:, max_encoder_length:])
        target_scale = x["target_scale"]
        prediction = output * target_scale[:, 1, None, None] + target_scale[:, 0, None, None]
        Output = namedtuple("Output", ["prediction", "encoder_attention", "decoder_attention"])
        return Output(prediction, attn_output_weights[..., :max_encoder_length], attn_output_weights[..., max_encoder_length:])


class TFTOnnxWrapper(nn.Module):
    def __init__(self, tft_model):
        super().__init__()
        self.tft = tft_model

    def forward(self, encoder_cat, encoder_cont, decoder_cat, decoder_cont, encoder_lengths, decoder_lengths, target_scale):
        x = {
            "encoder_cat": encoder_cat,
            "encoder_cont": encoder_cont,
            "decoder_cat": decoder_cat,
            "decoder_cont": decoder_cont,
            "encoder_lengths": encoder_lengths,
            "decoder_lengths": decoder_lengths,
            "target_scale": target_scale,
        }
        output = self.tft(x)
        return output.prediction  # (B, pred_len, n_quantiles)


def make_model():
    return TFTOnnxWrapper(TemporalFusionTransformer()).eval()


def _inputs(batch, enc_lengths, encoder_length=20, prediction_length=1):
    return (
        torch.randint(0, 10, (batch, encoder_length, 1)),
        torch.randn(batch, encoder_length, 3),
        torch.randint(0, 10, (batch, prediction_length, 1)),
        torch.randn(batch, prediction_length, 3),
        torch.tensor(enc_lengths, dtype=torch.long),
        torch.full((batch,), prediction_length, dtype=torch.long),
        torch.stack([torch.randn(batch), torch.rand(batch) + 0.5], dim=1),  # (center, scale)
    )


def example_inputs():
    return _inputs(2, [20, 20])


def other_inputs():
    return [_inputs(4, [20, 20, 20, 20]), _inputs(3, [20, 14, 20])]


def probe_inputs():
    return other_inputs()

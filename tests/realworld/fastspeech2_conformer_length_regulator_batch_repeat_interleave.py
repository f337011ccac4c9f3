"""FastSpeech2Conformer (transformers) text-to-spectrogram: the length regulator fixes all-zero durations with
`if duration_labels.sum() == 0`, sizes its output buffer with `max_len = torch.sum(duration_labels, dim=1).max()`,
then loops over the batch with `torch.repeat_interleave(encoded_embedding, target_duration, dim=0)`; the model is
one of those whose `test_torch_export` still fails ("looping over the batch dimension and processing each sample
differently") and is skipped. (Conformer encoder/decoder, pitch/energy predictors and the postnet reduced to
embeddings, a duration predictor and linear layers.)

Source: https://github.com/huggingface/transformers/pull/43436
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"input_ids": {0: "batch", 1: "text_length"}}
BLIND = "domains-53"


class FastSpeech2ConformerPredictorLayer(nn.Module):
    def __init__(self, input_channels, num_chans, kernel_size, dropout_rate):
        super().__init__()
        self.conv = nn.Conv1d(input_channels, num_chans, kernel_size, stride=1, padding=(kernel_size - 1) // 2)
        self.activation = nn.ReLU()
        self.layer_norm = nn.LayerNorm(num_chans)
        self.dropout = nn.Dropout(dropout_rate)

    def forward(self, hidden_states):
        hidden_states = self.activation(self.conv(hidden_states))
        hidden_states = self.layer_norm(hidden_states.transpose(1, -1)).transpose(1, -1)
        return self.dropout(hidden_states)


class FastSpeech2ConformerDurationPredictor(nn.Module):
    def __init__(self, hidden_size=32, num_chans=32, layers=2, kernel_size=3):
        super().__init__()
        self.conv_layers = nn.ModuleList()
        self.log_domain_offset = 1.0
        for layer_idx in range(layers):
            input_channels = hidden_size if layer_idx == 0 else num_chans
            self.conv_layers.append(FastSpeech2ConformerPredictorLayer(input_channels, num_chans, kernel_size, 0.1))
        self.linear = nn.Linear(num_chans, 1)
        nn.init.constant_(self.linear.bias, 1.2)

    def forward(self, encoder_hidden_states):
        hidden_states = encoder_hidden_states.transpose(1, -1)
        for layer in self.conv_layers:
            hidden_states = layer(hidden_states)
        hidden_states = self.linear(hidden_states.transpose(1, -1)).squeeze(-1)
        if not self.training:
            # NOTE: calculate in linear domain
            hidden_states = torch.clamp(torch.round(hidden_states.exp() - self.log_domain_offset), min=0).long()
        return hidden_states


class FastSpeech2ConformerLengthRegulator(nn.Module):
    def forward(self, encoded_embeddings, duration_labels, speaking_speed=1.0):
        if speaking_speed <= 0:
            raise ValueError("`speaking_speed` must be greater than 0.")
        elif speaking_speed != 1.0:
            duration_labels = torch.round(duration_labels.float() * speaking_speed).long()

        if duration_labels.sum() == 0:
            duration_labels[duration_labels.sum(dim=1).eq(0)] = 1

        # Calculate the maximum length needed
        max_len = torch.sum(duration_labels, dim=1).max()

        # Create a padded tensor to hold the results
        hidden_states = encoded_embeddings.new_full(
            (encoded_embeddings.size(0), max_len, encoded_embeddings.size(2)), 0.0
        )

        # Loop through the batch and fill in the data
        for i, (encoded_embedding, target_duration) in enumerate(zip(encoded_embeddings, duration_labels)):
            repeated = torch.repeat_interleave(encoded_embedding, target_duration, dim=0)
            hidden_states[i, : repeated.size(0)] = repeated

        return hidden_states


class TinyFastSpeech2Conformer(nn.Module):
    def __init__(self, vocab_size=40, hidden_size=32, num_mel_bins=20):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden_size)
        self.encoder = nn.Sequential(nn.Linear(hidden_size, hidden_size), nn.ReLU(), nn.Linear(hidden_size, hidden_size))
        self.duration_predictor = FastSpeech2ConformerDurationPredictor(hidden_size)
        self.length_regulator = FastSpeech2ConformerLengthRegulator()
        self.decoder = nn.Sequential(nn.Linear(hidden_size, hidden_size), nn.ReLU())
        self.feat_out = nn.Linear(hidden_size, num_mel_bins)

    def forward(self, input_ids):
        encoder_hidden_states = self.encoder(self.embed(input_ids))
        duration_predictions = self.duration_predictor(encoder_hidden_states)
        hidden_states = self.length_regulator(encoder_hidden_states, duration_predictions, 1.0)
        spectrogram = self.feat_out(self.decoder(hidden_states))
        return spectrogram, duration_predictions


def make_model():
    return TinyFastSpeech2Conformer().eval()


def example_inputs():
    return (torch.randint(0, 40, (2, 12)),)


def other_inputs():
    return [(torch.randint(0, 40, (3, 17)),), (torch.randint(0, 40, (1, 7)),)]


def probe_inputs():
    return other_inputs()

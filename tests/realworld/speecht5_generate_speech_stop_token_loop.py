"""SpeechT5 text-to-speech (transformers `_generate_speech`): the model encodes the text, then runs
`while True:` decoder steps on the last prenet frame, appends each predicted mel `spectrum` to a Python
list and to `output_sequence`, and leaves the loop with `if idx >= minlen and (int(sum(prob >= threshold)) > 0
or idx >= maxlen): ... break` (maxlen is `int(encoder_last_hidden_state.size(1) * maxlenratio / reduction_factor)`).
Optimum's SpeechT5 export cannot take this loop: it splits the model into encoder / one decoder step /
postnet+vocoder and leaves the loop, the list and the stop-token check to be "handled outside of the ONNX".

Source: https://github.com/huggingface/optimum/pull/1404
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {1: "sequence"}}
BLIND = "domains-36"


class SpeechT5Config:
    vocab_size = 40
    hidden_size = 32
    num_mel_bins = 8
    reduction_factor = 2


class TextEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.fc = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(self, input_values):
        hidden_states = self.embed_tokens(input_values)
        return hidden_states + torch.tanh(self.fc(hidden_states))


class DecoderPrenet(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(config.num_mel_bins, 16), nn.Linear(16, 16)])
        self.final_layer = nn.Linear(16, config.hidden_size)

    def forward(self, input_values):
        inputs_embeds = input_values
        for layer in self.layers:
            inputs_embeds = nn.functional.relu(layer(inputs_embeds))
        return self.final_layer(inputs_embeds)


class WrappedDecoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.q_proj = nn.Linear(config.hidden_size, config.hidden_size)
        self.fc = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(self, hidden_states, encoder_hidden_states):
        scores = torch.softmax(self.q_proj(hidden_states) @ encoder_hidden_states.transpose(1, 2), dim=-1)
        return hidden_states + torch.tanh(self.fc(scores @ encoder_hidden_states))


class SpeechDecoderPostnet(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.feat_out = nn.Linear(config.hidden_size, config.num_mel_bins * config.reduction_factor)
        self.prob_out = nn.Linear(config.hidden_size, config.reduction_factor)
        self.conv = nn.Conv1d(config.num_mel_bins, config.num_mel_bins, 5, padding=2)

    def postnet(self, hidden_states):
        return hidden_states + self.conv(hidden_states.transpose(1, 2)).transpose(1, 2)


class SpeechT5ForTextToSpeech(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.encoder = TextEncoder(config)
        self.prenet = DecoderPrenet(config)
        self.wrapped_decoder = WrappedDecoder(config)
        self.speech_decoder_postnet = SpeechDecoderPostnet(config)

    def forward(self, input_ids, threshold=0.5, minlenratio=0.0, maxlenratio=2.0):
        encoder_last_hidden_state = self.encoder(input_values=input_ids)

        maxlen = int(encoder_last_hidden_state.size(1) * maxlenratio / self.config.reduction_factor)
        minlen = int(encoder_last_hidden_state.size(1) * minlenratio / self.config.reduction_factor)

        # Start the output sequence with a mel spectrum that is all zeros.
        output_sequence = encoder_last_hidden_state.new_zeros(1, 1, self.config.num_mel_bins)

        spectrogram = []
        idx = 0

        while True:
            idx += 1

            # Run the decoder prenet on the entire output sequence.
            decoder_hidden_states = self.prenet(output_sequence)
            # Run the decoder layers on the last element of the prenet output.
            decoder_out = self.wrapped_decoder(
                hidden_states=decoder_hidden_states[:, -1:],
                encoder_hidden_states=encoder_last_hidden_state,
            )
            last_decoder_output = decoder_out[0, -1]

            # Predict the new mel spectrum for this step in the sequence.
            spectrum = self.speech_decoder_postnet.feat_out(last_decoder_output)
            spectrum = spectrum.view(self.config.reduction_factor, self.config.num_mel_bins)
            spectrogram.append(spectrum)

            # Extend the output sequence with the new mel spectrum.
            output_sequence = torch.cat((output_sequence, spectrum[-1].view(1, 1, self.config.num_mel_bins)), dim=1)

            # Predict the probability that this is the stop token.
            prob = torch.sigmoid(self.speech_decoder_postnet.prob_out(last_decoder_output))

            # Finished when stop token or maximum length is reached.
            if idx >= minlen and (int(sum(prob >= threshold)) > 0 or idx >= maxlen):
                spectrogram = torch.cat(spectrogram, dim=0).unsqueeze(0)
                spectrogram = self.speech_decoder_postnet.postnet(spectrogram)
                spectrogram = spectrogram.squeeze(0)
                break

        return spectrogram


def make_model():
    model = SpeechT5ForTextToSpeech(SpeechT5Config()).eval()
    with torch.no_grad():
        # a stop-token head that fires on some inputs and not on others
        model.speech_decoder_postnet.prob_out.bias.fill_(-0.5)
    return model


def example_inputs():
    return (torch.randint(0, 40, (1, 9)),)


def other_inputs():
    return [(torch.randint(0, 40, (1, 14)),), (torch.randint(0, 40, (1, 5)),)]


def probe_inputs():
    return other_inputs()

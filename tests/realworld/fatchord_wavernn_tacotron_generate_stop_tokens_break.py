"""fatchord/WaveRNN Tacotron `generate()`: the autoregressive decoder runs `for t in range(0, steps, self.r)`,
the LSA attention keeps `self.cumulative`/`self.attention` on the module (re-initialised when `t == 0`) and the
loop stops with `if (stop_tokens > 0.5).all() and t > 10: break`; asked how to convert Tacotron to ONNX, the
answer was that the model cannot be exported as one graph because of the `for`/`while` decoding loop and has to
be split into encoder / decoder step / postnet.

Source: https://github.com/fatchord/WaveRNN/issues/243
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "text_len"}}
BLIND = "domains-19"


class PreNet(nn.Module):
    def __init__(self, in_dims, fc1_dims=64, fc2_dims=32, dropout=0.5):
        super().__init__()
        self.fc1 = nn.Linear(in_dims, fc1_dims)
        self.fc2 = nn.Linear(fc1_dims, fc2_dims)
        self.p = dropout

    def forward(self, x):
        x = F.dropout(F.relu(self.fc1(x)), self.p, training=self.training)
        x = F.dropout(F.relu(self.fc2(x)), self.p, training=self.training)
        return x


class LSA(nn.Module):
    def __init__(self, attn_dim, kernel_size=31, filters=32):
        super().__init__()
        self.conv = nn.Conv1d(1, filters, padding=(kernel_size - 1) // 2, kernel_size=kernel_size, bias=True)
        self.L = nn.Linear(filters, attn_dim, bias=False)
        self.W = nn.Linear(attn_dim, attn_dim, bias=True)
        self.v = nn.Linear(attn_dim, 1, bias=False)
        self.cumulative = None
        self.attention = None

    def init_attention(self, encoder_seq_proj):
        device = next(self.parameters()).device
        b, t, c = encoder_seq_proj.size()
        self.cumulative = torch.zeros(b, t, device=device)
        self.attention = torch.zeros(b, t, device=device)

    def forward(self, encoder_seq_proj, query, t, chars):
        if t == 0: self.init_attention(encoder_seq_proj)
        processed_query = self.W(query).unsqueeze(1)
        location = self.cumulative.unsqueeze(1)
        processed_loc = self.L(self.conv(location).transpose(1, 2))
        u = self.v(torch.tanh(processed_query + encoder_seq_proj + processed_loc))
        u = u.squeeze(-1)
        # Mask zero padding chars
        u = u * (chars != 0).float()
        # Smooth Attention
        scores = F.softmax(u, dim=1)
        self.attention = scores
        self.cumulative = self.cumulative + self.attention
        return scores.unsqueeze(-1).transpose(1, 2)


class Decoder(nn.Module):
    # Class variable because its value doesn't change between classes
    # yet ought to be scoped by class because its a property of a Decoder
    max_r = 20

    def __init__(self, n_mels, decoder_dims, lstm_dims):
        super().__init__()
        self.register_buffer('r', torch.tensor(1, dtype=torch.int))
        self.n_mels = n_mels
        self.prenet = PreNet(n_mels, fc1_dims=decoder_dims * 2, fc2_dims=decoder_dims // 2)
        self.attn_net = LSA(decoder_dims)
        self.attn_rnn = nn.GRUCell(decoder_dims + decoder_dims // 2, decoder_dims)
        self.rnn_input = nn.Linear(2 * decoder_dims, lstm_dims)
        self.res_rnn1 = nn.LSTMCell(lstm_dims, lstm_dims)
        self.res_rnn2 = nn.LSTMCell(lstm_dims, lstm_dims)
        self.mel_proj = nn.Linear(lstm_dims, n_mels * self.max_r, bias=False)
        self.stop_proj = nn.Linear(decoder_dims + lstm_dims, 1)

    def forward(self, encoder_seq, encoder_seq_proj, prenet_in,
                hidden_states, cell_states, context_vec, t, chars):
        batch_size = encoder_seq.size(0)
        attn_hidden, rnn1_hidden, rnn2_hidden = hidden_states
        rnn1_cell, rnn2_cell = cell_states
        prenet_out = self.prenet(prenet_in)
        attn_rnn_in = torch.cat([context_vec, prenet_out], dim=-1)
        attn_hidden = self.attn_rnn(attn_rnn_in.squeeze(1), attn_hidden)
        scores = self.attn_net(encoder_seq_proj, attn_hidden, t, chars)
        context_vec = scores @ encoder_seq
        context_vec = context_vec.squeeze(1)
        x = torch.cat([context_vec, attn_hidden], dim=1)
        x = self.rnn_input(x)
        rnn1_hidden, rnn1_cell = self.res_rnn1(x, (rnn1_hidden, rnn1_cell))
        x = x + rnn1_hidden
        rnn2_hidden, rnn2_cell = self.res_rnn2(x, (rnn2_hidden, rnn2_cell))
        x = x + rnn2_hidden
        mels = self.mel_proj(x)
        mels = mels.view(batch_size, self.n_mels, self.max_r)[:, :, :self.r]
        hidden_states = (attn_hidden, rnn1_hidden, rnn2_hidden)
        cell_states = (rnn1_cell, rnn2_cell)
        s = torch.cat((x, context_vec), dim=1)
        s = self.stop_proj(s)
        stop_tokens = torch.sigmoid(s)
        return mels, scores, hidden_states, cell_states, context_vec, stop_tokens


class Tacotron(nn.Module):
    def __init__(self, num_chars=40, embed_dims=32, decoder_dims=32, lstm_dims=32, n_mels=16, steps=48):
        super().__init__()
        self.n_mels = n_mels
        self.lstm_dims = lstm_dims
        self.decoder_dims = decoder_dims
        self.steps = steps
        self.embedding = nn.Embedding(num_chars, embed_dims)
        self.encoder_rnn = nn.GRU(embed_dims, decoder_dims // 2, batch_first=True, bidirectional=True)
        self.encoder_proj = nn.Linear(decoder_dims, decoder_dims, bias=False)
        self.decoder = Decoder(n_mels, decoder_dims, lstm_dims)
        self.postnet = nn.Conv1d(n_mels, n_mels, 5, padding=2)
        self.post_proj = nn.Linear(n_mels, 2 * n_mels, bias=False)

    @property
    def r(self):
        return self.decoder.r.item()

    def encoder(self, x):
        return self.encoder_rnn(self.embedding(x))[0]

    def forward(self, x):
        steps = self.steps
        device = next(self.parameters()).device  # use same device as parameters
        batch_size = 1
        x = torch.as_tensor(x, dtype=torch.long, device=device).unsqueeze(0)

        # Need to initialise all hidden states and pack into tuple for tidyness
        attn_hidden = torch.zeros(batch_size, self.decoder_dims, device=device)
        rnn1_hidden = torch.zeros(batch_size, self.lstm_dims, device=device)
        rnn2_hidden = torch.zeros(batch_size, self.lstm_dims, device=device)
        hidden_states = (attn_hidden, rnn1_hidden, rnn2_hidden)

        # Need to initialise all lstm cell states and pack into tuple for tidyness
        rnn1_cell = torch.zeros(batch_size, self.lstm_dims, device=device)
        rnn2_cell = torch.zeros(batch_size, self.lstm_dims, device=device)
        cell_states = (rnn1_cell, rnn2_cell)

        # Need a <GO> Frame for start of decoder loop
        go_frame = torch.zeros(batch_size, self.n_mels, device=device)

        # Need an initial context vector
        context_vec = torch.zeros(batch_size, self.decoder_dims, device=device)

        # Project the encoder outputs to avoid
        # unnecessary matmuls in the decoder loop
        encoder_seq = self.encoder(x)
        encoder_seq_proj = self.encoder_proj(encoder_seq)

        # Need a couple of lists for outputs
        mel_outputs, attn_scores, stop_outputs = [], [], []

        # Run the decoder loop
        for t in range(0, steps, self.r):
            prenet_in = mel_outputs[-1][:, :, -1] if t > 0 else go_frame
            mel_frames, scores, hidden_states, cell_states, context_vec, stop_tokens = \
                self.decoder(encoder_seq, encoder_seq_proj, prenet_in,
                             hidden_states, cell_states, context_vec, t, x)
            mel_outputs.append(mel_frames)
            attn_scores.append(scores)
            stop_outputs.extend([stop_tokens] * self.r)
            # Stop the loop when all stop tokens in batch exceed threshold
            if (stop_tokens > 0.5).all() and t > 10: break

        # Concat the mel outputs into sequence
        mel_outputs = torch.cat(mel_outputs, dim=2)

        # Post-Process for Linear Spectrograms
        postnet_out = self.postnet(mel_outputs)
        linear = self.post_proj(postnet_out.transpose(1, 2)).transpose(1, 2)
        return mel_outputs, linear


def make_model():
    return Tacotron().eval()


def _text(n, seed):
    return (torch.randint(1, 40, (n,), generator=torch.Generator().manual_seed(seed)),)


def example_inputs():
    return _text(14, 1)


def other_inputs():
    return [_text(23, 2), _text(6, 3), _text(31, 4)]


def probe_inputs():
    return other_inputs()

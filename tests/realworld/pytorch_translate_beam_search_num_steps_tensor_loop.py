"""pytorch/translate `BeamSearch` (ensemble_export.py), the whole beam search in one exported model: the encoder
ensemble runs once, the tiled first decoder step follows, then `for i in range(num_steps - 1)` steps the batched
beam decoder (top-k over beam x beam, `prev_hypos = best_indices // beam_size`, states re-gathered with
`index_select`) and concatenates every step into `all_tokens` / `all_scores` / ...; `num_steps` is a LongTensor
input of the export. The maintainers answer that the full beam-search ONNX export path "is not supported now" and
only components (encoder, decoder step) are exported. (The ScriptModule / traced-submodule wrappers are dropped;
one small attentional LSTM model stands in for the checkpoint ensemble.)

Source: https://github.com/pytorch/translate/issues/680
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.onnx.operators

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"src_tokens": {0: "src_length"}, "attn_weights": {0: "src_length"}}
BLIND = "domains-59"


class RNNEncoder(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_dim):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden_dim)

    def forward(self, src_tokens, src_lengths):
        x = self.embed_tokens(src_tokens).transpose(0, 1)  # (bsz, seq_len) -> (seq_len, bsz, embed_dim)
        outputs, (final_h, final_c) = self.lstm(x)
        return outputs, final_h, final_c


class RNNDecoder(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_dim):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, embed_dim)
        self.cell = nn.LSTMCell(embed_dim + hidden_dim, hidden_dim)
        self.initial_attn_context = nn.Parameter(torch.zeros(hidden_dim))
        self.output_projection = nn.Linear(2 * hidden_dim, vocab_size)

    def forward(self, input_tokens, encoder_output, prev_hidden, prev_cell, prev_input_feed):
        x = self.embed_tokens(input_tokens).squeeze(1)
        hidden, cell = self.cell(torch.cat([x, prev_input_feed], dim=1), (prev_hidden, prev_cell))
        attn_scores = F.softmax((encoder_output * hidden.unsqueeze(0)).sum(dim=2), dim=0)  # (src_len, bsz)
        context = (attn_scores.unsqueeze(2) * encoder_output).sum(dim=0)
        logits = self.output_projection(torch.cat([hidden, context], dim=1)).unsqueeze(1)
        return logits, attn_scores.t().unsqueeze(1), hidden, cell, context


class RNNModel(nn.Module):
    def __init__(self, src_vocab=24, tgt_vocab=20, embed_dim=16, hidden_dim=16):
        super().__init__()
        self.encoder = RNNEncoder(src_vocab, embed_dim, hidden_dim)
        self.decoder = RNNDecoder(tgt_vocab, embed_dim, hidden_dim)


class EncoderEnsemble(nn.Module):
    def __init__(self, models):
        super().__init__()
        self.models = models
        for i, model in enumerate(self.models):
            self._modules[f"model_{i}"] = model

    def forward(self, src_tokens, src_lengths):
        outputs = []
        states = []
        # (seq_length, batch_size) for compatibility with Caffe2
        src_tokens_seq_first = src_tokens.t()

        for i, model in enumerate(self.models):
            encoder_outputs, final_h, final_c = model.encoder(src_tokens_seq_first, src_lengths)
            outputs.append(encoder_outputs)
            states.extend([final_h[-1], final_c[-1]])
            states.append(model.decoder.initial_attn_context)
        for i, state in enumerate(states):
            outputs.append(state)
        return tuple(outputs)


class DecoderBatchedStepEnsemble(nn.Module):
    def __init__(self, models, vocab_size, eos, unk, beam_size, word_reward=0, unk_reward=0, tile_internal=False):
        super().__init__()
        self.models = models
        for i, model in enumerate(self.models):
            self._modules[f"model_{i}"] = model
        self.beam_size = beam_size
        self.word_rewards = torch.FloatTensor(vocab_size).fill_(word_reward)
        self.word_rewards[eos] = 0
        self.word_rewards[unk] = word_reward + unk_reward
        self.tile_internal = tile_internal

    def forward(self, input_tokens, prev_scores, timestep, *inputs):
        log_probs_per_model = []
        attn_weights_per_model = []
        state_outputs = []

        # from flat to (batch x 1)
        input_tokens = input_tokens.unsqueeze(1)
        next_state_input = len(self.models)

        # size of "batch" dimension of input as tensor
        batch_size = torch.onnx.operators.shape_as_tensor(input_tokens)[0]

        for i, model in enumerate(self.models):
            encoder_output = inputs[i]
            prev_hidden = inputs[next_state_input]
            prev_cell = inputs[next_state_input + 1]
            next_state_input += 2
            # ensure previous attention context has batch dimension
            input_feed_shape = torch.cat((batch_size.view(1), torch.LongTensor([-1])))
            prev_input_feed = torch.onnx.operators.reshape_from_tensor_shape(
                inputs[next_state_input], input_feed_shape
            )
            next_state_input += 1

            logits, attn_scores, next_hidden, next_cell, next_input_feed = model.decoder(
                input_tokens, encoder_output, prev_hidden, prev_cell, prev_input_feed
            )
            log_probs = F.log_softmax(logits, dim=2)
            log_probs_per_model.append(log_probs)
            attn_weights_per_model.append(attn_scores)
            state_outputs.extend([next_hidden, next_cell])
            state_outputs.append(next_input_feed)

        average_log_probs = torch.mean(torch.cat(log_probs_per_model, dim=1), dim=1, keepdim=True)
        average_attn_weights = torch.mean(torch.cat(attn_weights_per_model, dim=1), dim=1, keepdim=True)

        best_scores_k_by_k, best_tokens_k_by_k = torch.topk(average_log_probs.squeeze(1), k=self.beam_size)

        prev_scores_k_by_k = prev_scores.view(-1, 1).expand(-1, self.beam_size)
        total_scores_k_by_k = best_scores_k_by_k + prev_scores_k_by_k

        # flatten to take top k over all (beam x beam) hypos
        total_scores_flat = total_scores_k_by_k.view(-1)
        best_tokens_flat = best_tokens_k_by_k.view(-1)

        best_scores, best_indices = torch.topk(total_scores_flat, k=self.beam_size)

        best_tokens = best_tokens_flat.index_select(dim=0, index=best_indices).view(-1)

        # integer division to determine which input produced each successor
        prev_hypos = best_indices // self.beam_size

        attention_weights = average_attn_weights.index_select(dim=0, index=prev_hypos)

        word_rewards_for_best_tokens = self.word_rewards.index_select(0, best_tokens)
        best_scores += word_rewards_for_best_tokens

        # 'attention_weights_average' output shape: (src_length x beam_size)
        attention_weights = attention_weights.squeeze(1)

        outputs = [best_tokens, best_scores, prev_hypos, attention_weights]
        for i in range(len(self.models)):
            if self.tile_internal:
                outputs.append(inputs[i].repeat(1, self.beam_size, 1))
            else:
                outputs.append(inputs[i])

        for i, state in enumerate(state_outputs):
            next_state = state.index_select(dim=0, index=prev_hypos)
            outputs.append(next_state)

        return tuple(outputs)


class BeamSearch(nn.Module):
    def __init__(self, model_list, vocab_size=20, eos=2, unk=3, beam_size=3, word_reward=0, unk_reward=0):
        super().__init__()
        self.models = model_list
        self.beam_size = beam_size
        self.encoder_ens = EncoderEnsemble(self.models)
        self.decoder_ens_tile = DecoderBatchedStepEnsemble(
            self.models, vocab_size, eos, unk, beam_size, word_reward, unk_reward, tile_internal=True
        )
        self.decoder_ens = DecoderBatchedStepEnsemble(
            self.models, vocab_size, eos, unk, beam_size, word_reward, unk_reward, tile_internal=False
        )

    def forward(self, src_tokens, src_lengths, prev_token, prev_scores, attn_weights, prev_hypos_indices, num_steps):
        enc_states = self.encoder_ens(src_tokens, src_lengths)

        all_tokens = prev_token.repeat(repeats=[self.beam_size]).unsqueeze(dim=0)
        all_scores = prev_scores.repeat(repeats=[self.beam_size]).unsqueeze(dim=0)
        all_weights = (
            attn_weights.unsqueeze(dim=0)
            .repeat(repeats=[self.beam_size, 1])
            .unsqueeze(dim=0)
        )
        all_prev_indices = prev_hypos_indices.unsqueeze(dim=0)

        prev_token, prev_scores, prev_hypos_indices, attn_weights, *states = self.decoder_ens_tile(
            prev_token, prev_scores, 0, *enc_states
        )

        all_tokens = torch.cat((all_tokens, prev_token.unsqueeze(dim=0)), dim=0)
        all_scores = torch.cat((all_scores, prev_scores.unsqueeze(dim=0)), dim=0)
        all_weights = torch.cat((all_weights, attn_weights.unsqueeze(dim=0)), dim=0)
        all_prev_indices = torch.cat((all_prev_indices, prev_hypos_indices.unsqueeze(dim=0)), dim=0)

        for i in range(num_steps - 1):
            (
                prev_token,
                prev_scores,
                prev_hypos_indices,
                attn_weights,
                *states,
            ) = self.decoder_ens(prev_token, prev_scores, i + 1, *states)

            all_tokens = torch.cat((all_tokens, prev_token.unsqueeze(dim=0)), dim=0)
            all_scores = torch.cat((all_scores, prev_scores.unsqueeze(dim=0)), dim=0)
            all_weights = torch.cat((all_weights, attn_weights.unsqueeze(dim=0)), dim=0)
            all_prev_indices = torch.cat((all_prev_indices, prev_hypos_indices.unsqueeze(dim=0)), dim=0)

        return all_tokens, all_scores, all_weights, all_prev_indices


def make_model():
    return BeamSearch([RNNModel().eval()]).eval()


def _inputs(length, num_steps, beam_size=3, eos=2):
    src_tokens = torch.randint(4, 24, (length, 1), dtype=torch.int64)
    src_lengths = torch.IntTensor([length])
    prev_token = torch.LongTensor([eos])
    prev_scores = torch.FloatTensor([0.0])
    attn_weights = torch.zeros(length)
    prev_hypos_indices = torch.zeros(beam_size, dtype=torch.int64)
    return (src_tokens, src_lengths, prev_token, prev_scores, attn_weights, prev_hypos_indices,
            torch.LongTensor([num_steps]))


def example_inputs():
    return _inputs(10, 20)


def other_inputs():
    return [_inputs(7, 12), _inputs(13, 25)]


def probe_inputs():
    return other_inputs()

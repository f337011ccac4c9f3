"""transformers' "Bart + Beam Search to ONNX" example (bart_onnx/generation_onnx.py): `BARTGenerator.forward(input_ids,
attention_mask, max_length, decoder_start_token_id)` encodes once and runs `greedy_search` inside the exported model:
`while cur_len < max_length` with `max_length` a graph input, the decoder switched between a no-past and a with-past
variant on `len(past) == 0` with the flat KV-cache list growing every step, and
`if unfinished_sequences.max() == 0: break`. The PR says the generation loop "contains a for-loop workflow, so we need
to make them TorchScript-compatible for exporting to ONNX" (trace-based export cannot keep it). (BART encoder/decoder
reduced to one small attention layer each; the traced sub-decoders are plain modules here.)

Source: https://github.com/huggingface/transformers/pull/13765
"""
from typing import List

import torch
import torch.nn.functional as F
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "src_len"}, "attention_mask": {0: "batch", 1: "src_len"}}
BLIND = "domains-59"


def _convert_past_list_to_tuple(past_key_values):
    count_of_each_inner_tuple = 4
    results = ()
    temp_result = ()
    count_n = len(past_key_values) // count_of_each_inner_tuple
    for idx in range(count_n):
        real_idx = idx * count_of_each_inner_tuple
        temp_result = tuple(past_key_values[real_idx : real_idx + count_of_each_inner_tuple])
        results += ((temp_result),)
    return results


class TinyBartEncoder(nn.Module):
    def __init__(self, vocab_size=32, d_model=16):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, input_ids, attention_mask):
        h = self.embed_tokens(input_ids)
        return (torch.tanh(self.proj(h)) * attention_mask.unsqueeze(-1),)


class TinyBartDecoder(nn.Module):
    """One decoder layer: cached self-attention (k, v) + cross-attention (k, v), 4 past tensors per layer as in BART."""

    def __init__(self, vocab_size=32, d_model=16):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, d_model)
        self.q, self.k, self.v = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)
        self.cq, self.ck, self.cv = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)

    def forward(self, input_ids, encoder_hidden_states, encoder_attention_mask, past_key_values=None):
        h = self.embed_tokens(input_ids)
        k, v = self.k(h), self.v(h)
        if past_key_values is not None:
            k = torch.cat([past_key_values[0][0], k], dim=1)
            v = torch.cat([past_key_values[0][1], v], dim=1)
            ck, cv = past_key_values[0][2], past_key_values[0][3]
        else:
            ck, cv = self.ck(encoder_hidden_states), self.cv(encoder_hidden_states)
        q = self.q(h)
        causal = torch.ones(q.shape[1], k.shape[1], dtype=torch.bool).tril(k.shape[1] - q.shape[1])
        h = h + torch.softmax((q @ k.transpose(1, 2)).masked_fill(~causal, -1e9), dim=-1) @ v
        cross = (self.cq(h) @ ck.transpose(1, 2)).masked_fill(~encoder_attention_mask[:, None, :], -1e9)
        h = h + torch.softmax(cross, dim=-1) @ cv
        return h, ((k, v, ck, cv),)


class DecoderForONNX(torch.nn.Module):
    def __init__(self, decoder):
        super().__init__()
        self.decoder = decoder

    def forward(self, input_ids, encoder_state, attention_mask, past=None):
        all_results = None
        if past is not None:
            all_results = _convert_past_list_to_tuple(past)
            input_ids = input_ids[:, -1:]

        last_hidden_state, past_key_values = self.decoder(
            input_ids=input_ids,
            encoder_hidden_states=encoder_state,
            encoder_attention_mask=attention_mask,
            past_key_values=all_results,
        )

        past_values = []
        for past in past_key_values:
            past_values = past_values + list(past)
        return last_hidden_state, past_values


class MinLengthLogitsProcessorTS(torch.nn.Module):
    def __init__(self, min_length: int, eos_token_id: int):
        super().__init__()
        self.min_length = min_length
        self.eos_token_id = eos_token_id

    def forward(self, input_ids, scores) -> torch.Tensor:
        cur_len = input_ids.shape[-1]
        if cur_len < self.min_length:
            scores[:, self.eos_token_id] = -float("inf")
        return scores


class BARTGenerator(torch.nn.Module):
    def __init__(self, vocab_size=32, d_model=16, pad_token_id=1, eos_token_id=2, min_length=3):
        super().__init__()
        self.pad_token_id, self.eos_token_id = pad_token_id, eos_token_id
        self.encoder = TinyBartEncoder(vocab_size, d_model)
        decoder = TinyBartDecoder(vocab_size, d_model)
        self.decoder_no_past = DecoderForONNX(decoder)
        self.decoder_with_past = DecoderForONNX(decoder)
        self.logits_processor = MinLengthLogitsProcessorTS(min_length, eos_token_id)
        self.final_logits_weight = decoder.embed_tokens.weight
        self.final_logits_bias = nn.Parameter(torch.zeros(1, vocab_size))

    def _encoder_forward(self, input_ids, attention_mask):
        return self.encoder(input_ids, attention_mask)[0]

    @staticmethod
    def _init_sequence_length_for_generation(input_ids: torch.LongTensor, max_length: int):
        unfinished_sequences = torch.zeros(input_ids.shape[0], dtype=torch.long, device=input_ids.device) + 1
        sequence_lengths = torch.zeros(input_ids.shape[0], dtype=torch.long, device=input_ids.device) + max_length

        cur_len = input_ids.shape[-1]
        return sequence_lengths, unfinished_sequences, cur_len

    @staticmethod
    def _update_seq_length_for_generation(sequence_lengths, unfinished_sequences, cur_len, is_eos_in_next_token):
        # check if sentence is not finished yet
        is_sent_unfinished = unfinished_sequences.mul(is_eos_in_next_token.long()).bool()
        # update sentence length
        sequence_lengths = sequence_lengths.masked_fill(is_sent_unfinished, cur_len)
        unfinished_sequences = unfinished_sequences.mul((~is_eos_in_next_token).long())
        return sequence_lengths, unfinished_sequences

    def _decoder_forward(self, input_ids, encoder_output, attention_mask, past: List[torch.Tensor]):
        # Update here to use different decoder for different values of past.
        if past is None or len(past) == 0:
            decoder_output, past = self.decoder_no_past(
                input_ids=input_ids, encoder_state=encoder_output, attention_mask=attention_mask
            )
        else:
            decoder_output, past = self.decoder_with_past(
                input_ids=input_ids, encoder_state=encoder_output, attention_mask=attention_mask, past=past
            )

        lm_logits = F.linear(decoder_output, self.final_logits_weight, bias=self.final_logits_bias)

        return lm_logits, past

    def greedy_search(self, input_ids, encoder_output, attention_mask, max_length, pad_token_id: int, eos_token_id: int):
        # init sequence length tensors
        sequence_lengths, unfinished_sequences, cur_len = self._init_sequence_length_for_generation(
            input_ids, max_length
        )

        past: List[torch.Tensor] = []
        while cur_len < max_length:
            logits, past = self._decoder_forward(input_ids, encoder_output, attention_mask, past)
            next_token_logits = logits[:, -1, :]

            # pre-process distribution
            scores = self.logits_processor(input_ids, next_token_logits)

            # argmax
            next_tokens = torch.argmax(scores, dim=-1)

            # add code that transfomers next_tokens to tokens_to_add
            if eos_token_id is not None:
                assert pad_token_id is not None, "If eos_token_id is defined, make sure that pad_token_id is defined."
                next_tokens = next_tokens * unfinished_sequences + (pad_token_id) * (1 - unfinished_sequences)

            # add token and increase length by one
            input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)

            # update sequence length
            if eos_token_id is not None:
                sequence_lengths, unfinished_sequences = self._update_seq_length_for_generation(
                    sequence_lengths, unfinished_sequences, cur_len, next_tokens == eos_token_id
                )

            # stop when there is a </s> in each sentence, or if we exceed the maximul length
            if unfinished_sequences.max() == 0:
                break

            # increase cur_len
            cur_len = cur_len + 1

        return input_ids

    def _prepare_decoder_input_ids_for_generation(self, input_ids, decoder_start_token_id, bos_token_id=None):
        decoder_input_ids = (
            torch.ones((input_ids.shape[0], 1), dtype=input_ids.dtype, device=input_ids.device)
            * decoder_start_token_id
        )
        return decoder_input_ids

    def forward(self, input_ids, attention_mask, max_length, decoder_start_token_id):
        pad_token_id = self.pad_token_id
        eos_token_id = self.eos_token_id

        encoder_output = self._encoder_forward(input_ids, attention_mask)

        input_ids = self._prepare_decoder_input_ids_for_generation(
            input_ids, decoder_start_token_id=decoder_start_token_id,
        )

        return self.greedy_search(
            input_ids,
            encoder_output,
            attention_mask,
            max_length=max_length,
            pad_token_id=pad_token_id,
            eos_token_id=eos_token_id,
        )


def make_model():
    return BARTGenerator().eval()


def _inputs(batch, src_len, max_length):
    input_ids = torch.randint(3, 32, (batch, src_len), dtype=torch.long)
    attention_mask = torch.ones(batch, src_len, dtype=torch.bool)
    return (input_ids, attention_mask, torch.tensor(max_length), torch.tensor(2))


def example_inputs():
    return _inputs(2, 9, 12)


def other_inputs():
    return [_inputs(3, 14, 7), _inputs(1, 5, 16)]


def probe_inputs():
    return other_inputs()

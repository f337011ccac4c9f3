"""RecurrentGemma (Griffin/Hawk) recurrent block: the RG-LRU's `_rnn_scan` runs the linear recurrence in
"linear mode" with `for t in range(hidden_states.shape[1])`, writing `contextualized_states[:, t]` step by
step (and takes a separate path when `hidden_states.shape[1] == 1`); the PR that swaps in the
`associative_scan` higher-order op says this sequential loop over the sequence is the bottleneck when the
model is captured by dynamo, which unrolls it once per sequence length.

Source: https://github.com/huggingface/transformers/pull/43737
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"input_states": {0: "batch", 1: "seq"}, "position_ids": {0: "batch", 1: "seq"}}
BLIND = "domains-46"


class RecurrentGemmaConfig:
    hidden_size = 32
    lru_width = 32
    num_attention_heads = 4
    conv1d_width = 4


class SqrtBoundDerivative(torch.autograd.Function):
    """Computes a square root with a gradient clipped at `_MAX_SQRT_GRADIENT`."""

    @staticmethod
    def forward(ctx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return torch.sqrt(x)

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        clipped_x_times_4 = torch.clip(4.0 * x, min=1 / (1000.0**2))
        return grad_output / torch.sqrt(clipped_x_times_4)


class RecurrentGemmaRglru(nn.Module):
    """A Real-Gated Linear Recurrent Unit (RG-LRU) layer."""

    def __init__(self, config):
        super().__init__()
        self.num_attention_heads = config.num_attention_heads
        self.block_width = config.lru_width // self.num_attention_heads
        self.recurrent_param = nn.Parameter(torch.randn([config.lru_width]))
        self.input_gate_weight = nn.Parameter(torch.randn([self.num_attention_heads, self.block_width, self.block_width]) * 0.2)
        self.input_gate_bias = nn.Parameter(torch.zeros([self.num_attention_heads, self.block_width]))
        self.recurrent_gate_weight = nn.Parameter(torch.randn([self.num_attention_heads, self.block_width, self.block_width]) * 0.2)
        self.recurrent_gate_bias = nn.Parameter(torch.zeros([self.num_attention_heads, self.block_width]))
        self.recurrent_states = None

    def forward(self, activations, position_ids):
        batch_size, seq_len, lru_width = activations.shape
        reset = position_ids[:, :, None] == 0

        reshape_act = activations.reshape(batch_size * seq_len, self.num_attention_heads, self.block_width)
        reshape_act = reshape_act.permute(1, 0, 2)

        res = torch.baddbmm(self.input_gate_bias[:, None, :], reshape_act, self.input_gate_weight)
        input_gate = torch.sigmoid(res.transpose(0, 1).reshape(batch_size, seq_len, lru_width))

        res = torch.baddbmm(self.recurrent_gate_bias[:, None, :], reshape_act, self.recurrent_gate_weight)
        recurrent_gate = torch.sigmoid(res.transpose(0, 1).reshape(batch_size, seq_len, lru_width))

        # Compute the parameter `A` of the recurrence.
        log_recurrent_gate = -8.0 * recurrent_gate * nn.functional.softplus(self.recurrent_param)
        recurrent_gate = torch.exp(log_recurrent_gate)
        a_square = torch.exp(2 * log_recurrent_gate)

        gated_inputs = activations * input_gate
        multiplier = SqrtBoundDerivative.apply(1 - a_square)
        multiplier = reset + ~reset * multiplier
        normalized_x = gated_inputs * multiplier.type(activations.dtype)

        hidden_states, recurrent_states = self._rnn_scan(
            hidden_states=normalized_x,
            recurrent_gate=recurrent_gate,
            reset=reset,
            recurrent_states=self.recurrent_states,
        )
        self.recurrent_states = recurrent_states
        return hidden_states

    def _rnn_scan(self, hidden_states, recurrent_gate, reset, recurrent_states, acc_dtype=torch.float32):
        # Multiply `a` by the reset.
        recurrent_gate = recurrent_gate * ~reset

        if hidden_states.shape[1] == 1:
            # Using scan in sampling mode.
            if recurrent_states is None:  # same here, when decoding you always have cache
                return hidden_states, hidden_states[:, 0].type(acc_dtype)
            else:
                contextualized_states = recurrent_gate.type(acc_dtype) * recurrent_states[:, None].to(recurrent_gate.device)
                contextualized_states += hidden_states.type(acc_dtype)
                return contextualized_states.type(hidden_states.dtype), contextualized_states[:, -1]
        else:
            # Using scan in linear mode.
            if recurrent_states is None:
                recurrent_states = torch.zeros(hidden_states[:, 0].shape, dtype=acc_dtype, device=hidden_states.device)

            contextualized_states = torch.zeros_like(hidden_states)
            for t in range(hidden_states.shape[1]):
                recurrent_states = recurrent_gate[:, t].type(acc_dtype) * recurrent_states.to(recurrent_gate.device)
                recurrent_states = recurrent_states + hidden_states[:, t].type(acc_dtype)
                contextualized_states[:, t] = recurrent_states.type(hidden_states.dtype)

        return contextualized_states, recurrent_states


class RecurrentGemmaRecurrentBlock(nn.Module):
    """Griffin and Hawk's recurrent block (use_cache=False path)."""

    def __init__(self, config):
        super().__init__()
        self.linear_y = nn.Linear(config.hidden_size, config.lru_width)
        self.linear_x = nn.Linear(config.hidden_size, config.lru_width)
        self.linear_out = nn.Linear(config.lru_width, config.hidden_size)
        self.conv1d_width = config.conv1d_width
        self.conv_1d = nn.Conv1d(config.lru_width, config.lru_width, kernel_size=config.conv1d_width,
                                 groups=config.lru_width, padding=config.conv1d_width - 1)
        self.rg_lru = RecurrentGemmaRglru(config)
        self.act_fn = nn.GELU(approximate="tanh")
        self.conv1d_state = None

    def forward(self, input_states, position_ids):
        _, seq_len, _ = input_states.shape
        y_branch = self.act_fn(self.linear_y(input_states))
        x_branch = self.linear_x(input_states).transpose(1, 2)

        self.conv1d_state = None
        self.rg_lru.recurrent_states = None
        x_branch = self.conv_1d(x_branch)[..., :seq_len]

        x_branch = self.rg_lru(x_branch.transpose(1, 2), position_ids)
        hidden_states = x_branch * y_branch
        return self.linear_out(hidden_states)


def make_model():
    return RecurrentGemmaRecurrentBlock(RecurrentGemmaConfig()).eval()


def _pos(b, s):
    return torch.arange(s).unsqueeze(0).expand(b, s).contiguous()


def example_inputs():
    return (torch.randn(2, 8, 32), _pos(2, 8))


def other_inputs():
    return [(torch.randn(3, 13, 32), _pos(3, 13)), (torch.randn(1, 5, 32), _pos(1, 5))]


def probe_inputs():
    return other_inputs()

"""Hugging Face Mamba mixer (`slow_forward`, the CPU path) exported with its cache as inputs/outputs: the mixer
picks the prefill or the decode convolution with `if cache_position.shape[0] == self.conv_kernel_size:` (the
comment says it avoids `cache_position[0] == 0`), so one exported graph cannot serve both prefill and decoding;
the reporter says this if-else "prevents proper inference and alignment with the Hugging Face model" and asks that
the else branch always be taken.

Source: https://github.com/huggingface/transformers/issues/36403
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {
    "input_states": {0: "batch", 1: "seq"},
    "conv_states": {1: "batch"},
    "ssm_states": {1: "batch"},
    "cache_position": {0: "cache_len"},
}
BLIND = "domains-10"


class MambaConfig:
    hidden_size = 16
    state_size = 8
    expand = 2
    intermediate_size = 32
    conv_kernel = 4
    time_step_rank = 2
    num_hidden_layers = 1
    use_conv_bias = True
    use_bias = False


class MambaCache:
    """transformers.cache_utils.MambaCache, taking the states from the caller (export wrapper)."""

    def __init__(self, config, conv_states, ssm_states):
        self.conv_kernel_size = config.conv_kernel
        self.conv_states = conv_states
        self.ssm_states = ssm_states

    def update_conv_state(self, layer_idx: int, new_conv_state: torch.Tensor, cache_position: torch.LongTensor) -> torch.Tensor:
        conv_state = self.conv_states[layer_idx]
        cache_position = cache_position.clamp(0, self.conv_kernel_size - 1)

        conv_state = conv_state.roll(shifts=-1, dims=-1)
        conv_state[:, :, cache_position] = new_conv_state.to(device=conv_state.device, dtype=conv_state.dtype)
        self.conv_states[layer_idx].zero_()
        self.conv_states[layer_idx] += conv_state
        return self.conv_states[layer_idx]


class MambaMixer(nn.Module):
    def __init__(self, config, layer_idx):
        super().__init__()
        self.hidden_size = config.hidden_size
        self.ssm_state_size = config.state_size
        self.conv_kernel_size = config.conv_kernel
        self.intermediate_size = config.intermediate_size
        self.time_step_rank = int(config.time_step_rank)
        self.layer_idx = layer_idx
        self.use_conv_bias = config.use_conv_bias
        self.conv1d = nn.Conv1d(self.intermediate_size, self.intermediate_size, bias=config.use_conv_bias,
                                kernel_size=config.conv_kernel, groups=self.intermediate_size,
                                padding=config.conv_kernel - 1)
        self.act = nn.SiLU()
        self.in_proj = nn.Linear(self.hidden_size, self.intermediate_size * 2, bias=config.use_bias)
        self.x_proj = nn.Linear(self.intermediate_size, self.time_step_rank + self.ssm_state_size * 2, bias=False)
        self.dt_proj = nn.Linear(self.time_step_rank, self.intermediate_size, bias=True)
        A = torch.arange(1, self.ssm_state_size + 1, dtype=torch.float32)[None, :]
        A = A.expand(self.intermediate_size, -1).contiguous()
        self.A_log = nn.Parameter(torch.log(A))
        self.D = nn.Parameter(torch.ones(self.intermediate_size))
        self.out_proj = nn.Linear(self.intermediate_size, self.hidden_size, bias=config.use_bias)

    # fmt: off
    def slow_forward(self, input_states, cache_params=None, cache_position=None, attention_mask=None):
        batch_size, seq_len, _ = input_states.shape
        dtype = input_states.dtype
        # 1. Gated MLP's linear projection
        projected_states = self.in_proj(input_states).transpose(1, 2)                   # [batch, 2 * intermediate_size, seq_len]
        hidden_states, gate = projected_states.chunk(2, dim=1)

        if attention_mask is not None:
            hidden_states = hidden_states * attention_mask.unsqueeze(1)

        # 2. Convolution sequence transformation
        if cache_params is not None:
            ssm_state = cache_params.ssm_states[self.layer_idx].clone()
            ssm_state = ssm_state.to(hidden_states.device)
            # use `cache_position.shape[0]` to check whether we are in prefill
            # stage, it's equivalent to check `cache_position[0] == 0`, which
            # breaks dynamo fullgraph constraints
            if cache_position.shape[0] == self.conv_kernel_size:
                conv_state = nn.functional.pad(
                    hidden_states,
                    (self.conv_kernel_size - hidden_states.shape[-1], 0)
                )

                cache_params.update_conv_state(self.layer_idx, conv_state, cache_position)
                hidden_states = self.act(self.conv1d(hidden_states)[..., :seq_len])     # [batch, intermediate_size, seq_len]
            else:
                conv_state = cache_params.update_conv_state(self.layer_idx, hidden_states, cache_position)
                hidden_states = torch.sum(conv_state * self.conv1d.weight[:, 0, :], dim=-1)
                if self.use_conv_bias:
                    hidden_states += self.conv1d.bias
                hidden_states = self.act(hidden_states).to(dtype).unsqueeze(-1)         # [batch, intermediate_size, 1] : decoding
        else:
            ssm_state = torch.zeros(
                (batch_size, self.intermediate_size, self.ssm_state_size),
                device=hidden_states.device, dtype=dtype
            )
            hidden_states = self.act(self.conv1d(hidden_states)[..., :seq_len])         # [batch, intermediate_size, seq_len]

        # 3. State Space Model sequence transformation
        ssm_parameters = self.x_proj(hidden_states.transpose(1, 2))
        time_step, B, C = torch.split(
            ssm_parameters, [self.time_step_rank, self.ssm_state_size, self.ssm_state_size], dim=-1
        )
        discrete_time_step = self.dt_proj(time_step)                                    # [batch, seq_len, intermediate_size]
        discrete_time_step = nn.functional.softplus(discrete_time_step).transpose(1, 2) # [batch, intermediate_size, seq_len]

        A = -torch.exp(self.A_log.float())                                              # [intermediate_size, ssm_state_size]
        discrete_A = torch.exp(A[None, :, None, :] * discrete_time_step[:, :, :, None]) # [batch, intermediate_size, seq_len, ssm_state_size]
        discrete_B = discrete_time_step[:, :, :, None] * B[:, None, :, :].float()       # [batch, intermediate_size, seq_len, ssm_state_size]
        deltaB_u = discrete_B * hidden_states[:, :, :, None].float()

        scan_outputs = []
        for i in range(seq_len):
            ssm_state = discrete_A[:, :, i, :] * ssm_state + deltaB_u[:, :, i, :]      # [batch, intermediate_size, ssm_state]
            scan_output = torch.matmul(ssm_state.to(dtype), C[:, i, :].unsqueeze(-1))  # [batch, intermediate_size, 1]
            scan_outputs.append(scan_output[:, :, 0])
        scan_output = torch.stack(scan_outputs, dim=-1)                                # [batch, intermediate_size, seq_len]
        scan_output = scan_output + (hidden_states * self.D[None, :, None])
        scan_output = (scan_output * self.act(gate))

        if cache_params is not None:
            cache_params.ssm_states[self.layer_idx].copy_(ssm_state)

        # 4. Final linear projection
        contextualized_states = self.out_proj(scan_output.transpose(1, 2))  # [batch, seq_len, hidden_size]
        return contextualized_states
    # fmt: on


class MambaMixerWithCache(nn.Module):
    """Export wrapper: the cache tensors go in and come out, as in the report's export with use_cache=True."""

    def __init__(self, config):
        super().__init__()
        self.config = config
        self.mixer = MambaMixer(config, layer_idx=0)

    def forward(self, input_states, conv_states, ssm_states, cache_position):
        cache_params = MambaCache(self.config, conv_states.clone(), ssm_states.clone())
        out = self.mixer.slow_forward(input_states, cache_params=cache_params, cache_position=cache_position)
        return out, cache_params.conv_states, cache_params.ssm_states


def make_model():
    return MambaMixerWithCache(MambaConfig()).eval()


def _inputs(batch, seq, cache_position):
    c = MambaConfig()
    return (
        torch.randn(batch, seq, c.hidden_size),
        torch.randn(c.num_hidden_layers, batch, c.intermediate_size, c.conv_kernel),
        torch.randn(c.num_hidden_layers, batch, c.intermediate_size, c.state_size),
        cache_position,
    )


def example_inputs():
    # prefill: generate() passes cache_position = arange(conv_kernel)
    return _inputs(2, 6, torch.arange(0, 4))


def other_inputs():
    # a decoding step (one token, one cache position), then a longer prefill
    return [_inputs(3, 1, torch.tensor([6])), _inputs(1, 9, torch.arange(0, 4))]


def probe_inputs():
    return other_inputs()

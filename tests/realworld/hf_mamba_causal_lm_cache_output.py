"""Hugging Face `MambaForCausalLM` exported with `torch.onnx.export(model, dummy_inputs, ..., dynamo=True)` and the
default `use_cache=True`: the forward creates a `MambaCache` and returns it next to the logits, and the export fails
with "Found <class 'transformers.cache_utils.MambaCache'> in output, which is not a known type"; with
`use_cache=False` the export works (but runs the other, cache-free code path).

Source: https://github.com/pytorch/pytorch/issues/146835
"""
import torch
from torch import nn

CLASS = "outputs"
FAMILY = "scalars"
DYNAMIC = {}
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
    """transformers.cache_utils.MambaCache (one stacked tensor per state kind)."""

    def __init__(self, config, batch_size: int, dtype=torch.float32, device=None):
        self.dtype = dtype
        self.conv_kernel_size = config.conv_kernel
        self.conv_states = torch.zeros(config.num_hidden_layers, batch_size, config.intermediate_size,
                                       self.conv_kernel_size, device=device, dtype=dtype)
        self.ssm_states = torch.zeros(config.num_hidden_layers, batch_size, config.intermediate_size,
                                      config.state_size, device=device, dtype=dtype)

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


class MambaRMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


class MambaBlock(nn.Module):
    def __init__(self, config, layer_idx):
        super().__init__()
        self.norm = MambaRMSNorm(config.hidden_size)
        self.mixer = MambaMixer(config, layer_idx=layer_idx)

    def forward(self, hidden_states, cache_params=None, cache_position=None):
        residual = hidden_states
        hidden_states = self.norm(hidden_states.to(dtype=self.norm.weight.dtype))
        hidden_states = self.mixer.slow_forward(hidden_states, cache_params=cache_params, cache_position=cache_position)
        return residual + hidden_states


class MambaForCausalLM(nn.Module):
    def __init__(self, config, vocab_size=64, use_cache=True):
        super().__init__()
        self.config = config
        self.use_cache = use_cache
        self.embeddings = nn.Embedding(vocab_size, config.hidden_size)
        self.layers = nn.ModuleList([MambaBlock(config, layer_idx=i) for i in range(config.num_hidden_layers)])
        self.norm_f = MambaRMSNorm(config.hidden_size)
        self.lm_head = nn.Linear(config.hidden_size, vocab_size, bias=False)

    def forward(self, input_ids, cache_params=None, cache_position=None, use_cache=None):
        use_cache = use_cache if use_cache is not None else self.use_cache
        inputs_embeds = self.embeddings(input_ids)

        if use_cache:
            if cache_params is None:
                cache_params = MambaCache(self.config, inputs_embeds.size(0), device=inputs_embeds.device,
                                          dtype=inputs_embeds.dtype)
                cache_position = torch.arange(0, self.config.conv_kernel, device=inputs_embeds.device)
        else:
            cache_params = None

        hidden_states = inputs_embeds
        for mixer_block in self.layers:
            hidden_states = mixer_block(hidden_states, cache_params=cache_params, cache_position=cache_position)
        hidden_states = self.norm_f(hidden_states)
        logits = self.lm_head(hidden_states.to(self.lm_head.weight.dtype)).float()
        # MambaCausalLMOutput(logits=logits, cache_params=cache_params if use_cache else None)
        return logits, cache_params


def make_model():
    return MambaForCausalLM(MambaConfig()).eval()


def example_inputs():
    # the report's dummy_inputs = torch.tensor([[33]], dtype=torch.int32)
    return (torch.tensor([[33]], dtype=torch.int32),)


def other_inputs():
    return [(torch.tensor([[7]], dtype=torch.int32),), (torch.tensor([[50]], dtype=torch.int32),)]


def probe_inputs():
    return other_inputs()

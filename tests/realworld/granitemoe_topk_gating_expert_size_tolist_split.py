"""IBM GraniteMoE sparse MoE layer (transformers v4.47 `GraniteMoeMoE`): the router counts tokens per expert and
returns `expert_size = expert_size.tolist()`, and each `GraniteMoeParallelExperts` then does
`inputs.split(expert_size, dim=0)` and one `F.linear` per expert. optimum-intel's GraniteMoE export support patches
both: "removed expert_size = expert_size.tolist() due to incorrect tracing" and slices the inputs one expert at a
time with tensor indices instead of the precomputed Python split. (Tiny config: 4 experts, top-2, hidden 16.)

Source: https://github.com/huggingface/optimum-intel/pull/1099
"""
import torch
from torch import nn
from torch.nn import functional as F

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"layer_input": {0: "batch", 1: "seq"}}
BLIND = "domains-49"


class GraniteMoeParallelExperts(nn.Module):
    def __init__(self, num_experts: int, input_size: int, output_size: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_experts, output_size, input_size) * 0.1)
        self.num_experts = num_experts
        self.input_size = input_size
        self.output_size = output_size

    def forward(self, inputs, expert_size):
        input_list = inputs.split(expert_size, dim=0)
        output_list = []
        for i in range(self.num_experts):
            output_list.append(F.linear(input_list[i], self.weight[i]))
        results = torch.cat(output_list, dim=0)
        return results


class GraniteMoeTopKGating(nn.Module):
    def __init__(self, input_size: int, num_experts: int, top_k: int):
        super().__init__()
        self.num_experts = num_experts
        self.input_size = input_size
        self.top_k = top_k
        self.layer = nn.Linear(input_size, num_experts, bias=False)

    def forward(self, hidden_states):
        # compute the top_k routing decision
        logits = self.layer(hidden_states).float()  # [batch_size x seq_len, num_experts]
        top_k_logits, top_k_indices = logits.topk(self.top_k, dim=1)  # [num_tokens, top_k]
        top_k_gates = torch.softmax(top_k_logits, dim=1).type_as(hidden_states)  # [num_tokens, top_k]

        # compute number of input given to each expert
        zeros = torch.zeros(
            [top_k_gates.size(0), self.num_experts], dtype=top_k_gates.dtype, device=top_k_gates.device
        )  # [num_tokens, num_experts]
        gates = zeros.scatter(1, top_k_indices, 1)  # [num_tokens, num_experts]
        expert_size = gates.long().sum(0)  # [num_experts,]
        expert_size = expert_size.tolist()

        # sort and group input tokens according to expert assignment
        top_k_experts = top_k_indices.flatten()  # [num_tokens * top_k]
        _, index_sorted_experts = top_k_experts.sort(0)  # [num_tokens * top_k]
        batch_index = index_sorted_experts.div(self.top_k, rounding_mode="trunc")  # [num_tokens * top_k]

        # gather the gate values for grouped input tokens
        top_k_gates = top_k_gates.flatten()  # [num_tokens * top_k]
        batch_gates = top_k_gates[index_sorted_experts]  # [num_tokens * top_k]

        return index_sorted_experts, batch_index, batch_gates, expert_size, logits


class GraniteMoeMoE(nn.Module):
    def __init__(self, hidden_size=16, intermediate_size=24, num_local_experts=4, num_experts_per_tok=2):
        super().__init__()
        self.input_size = hidden_size
        self.hidden_size = intermediate_size
        self.activation = nn.SiLU()
        self.input_linear = GraniteMoeParallelExperts(num_local_experts, self.input_size, self.hidden_size * 2)
        self.output_linear = GraniteMoeParallelExperts(num_local_experts, self.hidden_size, self.input_size)
        self.router = GraniteMoeTopKGating(
            input_size=self.input_size, num_experts=num_local_experts, top_k=num_experts_per_tok
        )

    def forward(self, layer_input):
        bsz, length, emb_size = layer_input.size()
        layer_input = layer_input.reshape(-1, emb_size)
        _, batch_index, batch_gates, expert_size, router_logits = self.router(layer_input)

        expert_inputs = layer_input[batch_index]
        hidden_states = self.input_linear(expert_inputs, expert_size)
        chunked_hidden_states = hidden_states.chunk(2, dim=-1)
        hidden_states = self.activation(chunked_hidden_states[0]) * chunked_hidden_states[1]
        expert_outputs = self.output_linear(hidden_states, expert_size)

        expert_outputs = expert_outputs * batch_gates[:, None]

        zeros = torch.zeros((bsz * length, self.input_size), dtype=expert_outputs.dtype, device=expert_outputs.device)
        layer_output = zeros.index_add(0, batch_index, expert_outputs)
        layer_output = layer_output.view(bsz, length, self.input_size)
        return layer_output, router_logits


def make_model():
    return GraniteMoeMoE().eval()


def example_inputs():
    return (torch.randn(2, 9, 16),)


def other_inputs():
    return [(torch.randn(3, 13, 16),), (torch.randn(1, 4, 16),)]


def probe_inputs():
    return other_inputs()

"""Export-time repairs that are not one operator's decomposition, named by the failure they
repair (torch-free: the session reads the patterns, exporter/decompose.py applies the repairs).

`--decompose-ops KEY` takes these keys beside the decompositions'; `--decompose` alone (every
decomposition) leaves them out: they change how whole values are carried, so they run only
when named, or when a run failed the way they repair.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from onnxfix.decompositions import DECOMPOSITIONS, rule_keys


@dataclass(frozen=True)
class ExportRepair:
    error: str  # regex on an exporter's error
    description: str
    keys: tuple[str, ...]  # the decompositions substituted while exporting
    # torch settings changed while exporting (exporter/decompose.py REPAIR_CONTEXTS)
    contexts: tuple[str, ...] = ()
    # regex on a frame of the error's traceback, as "path:function" (a failure inside a torch
    # library function, whose message names only the user's line)
    frame: str = ""
    # static findings that, with a failed dynamo export, name the repair (the failure can be silent)
    static_codes: tuple[str, ...] = ()
    # its context counts what it changed (exporter/decompose.py): kept only where it did
    counts_use: bool = False


# library operators onnxfix decomposes (transformers.grouped_mm_fallback): their decomposition is the
# repair the run names, not custom_ops_inlined, as `|ns\.name` alternatives of a regex lookahead
DECOMPOSED_CUSTOM_OPS = frozenset(t.removeprefix("torch.ops.") for d in DECOMPOSITIONS for t in d.targets
                                  if t.startswith("torch.ops.") and not t.startswith("torch.ops.aten."))
_DECOMPOSED_CUSTOM_OPS = "".join("|" + re.escape(op) for op in sorted(DECOMPOSED_CUSTOM_OPS))

# repairs that change the export itself rather than substitute ops (verify.py applies them)
GROW_KEY = "unit_examples_grown"  # exporter/unit_dims.py
FLAT_KEY = "flat_outputs"  # exporter/model_io.py
DEFAULTS_KEY = "defaults_as_constants"  # exporter/model_io.py
WRAPPED_KEY = "forward_called_positionally"  # exporter/model_io.py
RNN_LOOPS_KEY = "rnn_while_loops"  # exporter/nn_layers.py
FLOOR_KEY = "floor_division_floored"  # exporter/floor_division.py
BUFFERS_KEY = "int_buffers_as_numbers"  # exporter/number_buffers.py
DATA_DEPENDENT = r"Could not (?:guard on|extract specialized integer from) data-dependent expression"
# tried on a fact every wrong dynamo export shares: kept beside other repairs (a later round's) only
# where it makes the difference (session.py exports once more without it)
SPECULATIVE_REPAIRS = (FLOOR_KEY,)

EXPORT_REPAIRS = {
    "complex_pairs": ExportRepair(
        r"complex-valued input|[Cc]omplex(?:Float|Double|64|128)? (?:tensor|dtype|type)s? (?:is|are) not supported"
        r"|ComplexFloat|ComplexDouble|operator 'aten::(?:polar|view_as_complex|view_as_real|complex|fft_rfft2|fft_i?fft[2n]?|fft_rfft)'"
        r"|STFT does not currently support complex types|Unknown number type: complex",
        "complex tensors carried as (real, imaginary) pairs while exporting (torch.polar, view_as_complex, "
        "complex products and matmuls, view_as_real, rfft2 and the irfft of a pair, fft / fft2 / fftn and their inverses, a complex stft under "
        "legacy, a real tensor times a Python complex number, exp and istft of a pair: a complex RoPE, a global "
        "filter, a spectrogram, an iSTFT vocoder head); the complex buffers and tensor attributes a module "
        "holds (a RoPE table precomputed in __init__) carried as pairs too",
        rule_keys("ONX526"),  # ONX526's helpers
        contexts=("complex_state_as_pairs",),
    ),
    "float32_compute": ExportRepair(
        r"NOT_IMPLEMENTED : Could not find an implementation for \w+\("
        r"|operator does not support (?:double|bfloat16)"
        r"|MLFloat16 data type is not supported with Scatter"
        r"|Type Error: Type 'tensor\((?:bfloat16|double|float16|int64|int32|int16|int8|uint8|bool)\)' of input parameter",
        "ops on float64 / bfloat16 tensors, half-precision aranges (an ONNX Range, which has no float16 "
        "kernel) and random draws (rand, randn and their _like forms: no float16 RandomUniform / RandomNormal "
        "kernel), computed in float32 while exporting (onnxruntime's CPU provider has no kernel for many of "
        "them; the exported model rounds as float32 there); integer ops with no kernel for their type "
        "(int32 Unique, integer Relu, an integer addmm's Gemm) computed in int64, as a clamp, or as a MatMul and an Add, exactly; an integer or bool pixel_shuffle / "
        "pixel_unshuffle (no integer DepthToSpace) as torch's reshape, permutation and reshape; integer inputs of an op ATen computes in float (an exp, sqrt or atan2 of int32, which legacy writes on the integers) cast to that float first, as ATen casts them; an int16/32/64 max pooling (ONNX MaxPool takes "
        "floats, int8 and uint8) pooled in float64, exact below 2**53 in magnitude; a Where or maximum / minimum "
        "(also torch.min / max of two tensors), a sum or product of bool tensors (or / and), a masked_fill of a bool mask, between bool values on uint8 0 / 1 read back as bool, exactly; "
        "a max / min of a bool mask along a dim (no bool ArgMax / ReduceMax) on uint8, the same maxima and indices; a "
        "float16 scatter or index add / put that accumulates (no float16 ScatterElements / ScatterND with a "
        "reduction) in float32, in-place ops writing their float16 tensor",
        ("float32_compute",),
    ),
    # tried on facts, not on an error: an export failed and a declared dynamic dim is 1 in the
    # example (repair_candidates.py names it; exporter/unit_dims.py applies it)
    GROW_KEY: ExportRepair(
        r"(?!)",
        "the example grown from 1 to 2 along each declared dynamic dim it has at size 1 (repeated), "
        "for the export only: torch.export treats a size of 1 as a constant (its 0/1 specialization), "
        "so a model exported with one sample keeps batch 1; onnxruntime is still compared with eager "
        "on the user's own example and probes",
        (),
    ),
    "ellipsis_expanded": ExportRepair(
        r"is marked single but has an empty string in the graph",
        "an assignment through an index with `...` and a list or tensor index (`out[..., idx] = v`) run with "
        "the `...` spelled out as the `:` slices it stands for (exporter/index_keys.py): the legacy exporter "
        "writes the Ellipsis form as a graph onnx.checker rejects, the explicit form exports",
        (),
        contexts=("ellipsis_expanded",),
    ),
    # tried on facts: a legacy export failed and forward has defaults the call does not pass
    DEFAULTS_KEY: ExportRepair(
        r"(?!)",
        "the model exported through `forward(*args)` with the arguments the call gives, so forward's "
        "defaults stay the Python values the call uses: the legacy exporter appends every default to "
        "the arguments and traces it as an input (an int as a 0-d tensor, a list of ints as tensors); the "
        "ONNX model takes the given inputs only",
        (),
    ),
    # tried on facts: an export failed and forward is a functools.partial standing for the model's own
    WRAPPED_KEY: ExportRepair(
        r"(?!)",
        "the model exported through `forward(*args)`: its `forward` is a `functools.partial` of a hook's "
        "wrapper (diffusers' HookRegistry, accelerate's add_hook_to_module) whose `__wrapped__` names a "
        "`module` parameter the partial already binds, and torch.export binds the inputs against that "
        "signature; the call itself passes them as the user does",
        (),
    ),
    FLAT_KEY: ExportRepair(
        r"did not have observable data dependence with trace inputs"
        r"|Only tuples, lists and Variables are supported as JIT inputs/outputs"
        r"|in output, which is not a known type"
        # the legacy exporter's output shapes assigned past the graph's outputs: an empty list or a
        # string among the outputs has no graph value (_jit_pass_onnx_assign_output_shape)
        r"|ArrayRef: invalid index Index = \d+; Length = \d+",
        "the model's outputs flattened to a tuple of its tensors at the export boundary (exporter/model_io.py): "
        "a dict with tuple keys, a dataclass, a ModelOutput, an object of the model's own class (detectron2's "
        "Instances: its attributes in order), Python numbers, strings or empty lists beside the tensors; the ONNX "
        "model has one output per tensor, in the order eager is compared in",
        (),
    ),
    "fake_quant_constants": ExportRepair(
        r"fused_moving_avg_obs_f",
        "torch.ao fake-quantize modules whose observer is off (a QAT model prepared for export) traced as the "
        "fake quantization they compute, their flags and qparams read before tracing (exporter/quant_stubs.py): "
        "torch.export cannot guard on the flag buffers, and neither exporter translates "
        "torch.fused_moving_avg_obs_fake_quant; a module whose observer is on is left as it is",
        ("fake_quantize_per_tensor_affine",),
        contexts=("fake_quant_constants",),
        # the dynamo failure is a guard on the observer flag ("Eq(u0, 1)"), which any `.item() == 1`
        # raises too: only one inside torch.ao's fake-quantize module is this repair's
        frame=r"torch[\\/]ao[\\/]quantization[\\/]fake_quantize\.py:",
    ),
    "quantized_as_float": ExportRepair(
        r"PackedParamsBase|quantized::\w+|QuantizedCPU|operator .?quantize_per_tensor|qscheme on",
        "a model converted by torch.ao quantization (QuantStub/DeQuantStub, quantized Linear/Conv with fused ReLU "
        "or add, ConvTranspose, activations, normalisations, QFunctional, FX's quantize_per_tensor and "
        "quantized.add; in eager mode `torch.cat`, pools and ReLU6 on their input's grid) exported as the float "
        "arithmetic its kernels compute on each module's quantization grid: float ops on the dequantized weights, "
        "then ATen's rounding onto the output scale and zero point (exporter/quantized_modules.py); torch.export "
        "cannot trace the packed weights, and the legacy exporter translates only some quantized ops. quint8 "
        "activations only; kept only where onnxruntime matches the quantized kernels on the example and probes "
        "(a float sum can round one quantization step away from the integer kernel's on other inputs)",
        (),
        contexts=("quantized_as_float",),
    ),
    "compiled_unwrapped": ExportRepair(
        r"torch\.jit\.trace a dynamo-optimized function",
        "the functions and submodules a model wrapped with torch.compile (pi0.5's `self.forward = "
        "torch.compile(self.forward)` in __init__, a compiled backbone) exported through what they wrap, "
        "which the legacy tracer can follow; the wrappers put back afterwards (exporter/compiled.py)",
        (),
        contexts=("compiled_unwrapped",),
    ),
    "data_parallel_unwrapped": ExportRepair(
        r"torch\.nn\.DataParallel is not supported by ONNX exporter",
        "an `nn.DataParallel` wrapper (left from training, or built to load its checkpoint) exported through the "
        "module it wraps, as its forward on a CPU runs it; the wrapper put back afterwards "
        "(exporter/training_wrappers.py)",
        (),
        contexts=("data_parallel_unwrapped",),
    ),
    "checkpoint_inlined": ExportRepair(
        r"unordered_map::at",
        "activation checkpointing left on in eval (`torch.utils.checkpoint.checkpoint(layer, x, "
        "use_reentrant=True)`: an autograd.Function the legacy tracer fails in) run as the call it "
        "checkpoints, which gives the same values: checkpointing only drops activations for a backward "
        "pass (exporter/training_wrappers.py)",
        (),
        contexts=("checkpoint_inlined",), frame=r"torch[\\/]utils[\\/]checkpoint\.py:",
    ),
    "caches_bypassed": ExportRepair(
        r"unhashable type: '?(?:non-nested )?Sym(?:Int|Float|Bool)",
        "functions memoized with `functools.lru_cache` / `functools.cache` (einops before 0.7 caches its recipe "
        "on `tensor.shape`) run uncached while exporting: a dynamic size is a SymInt, which has no hash; a cache "
        "returns what its function computes (exporter/cached_functions.py)",
        (),
        contexts=("caches_bypassed",),
    ),
    "gradients_off": ExportRepair(
        r"Cannot insert a Tensor that requires grad as a constant|'SymInt' object has no attribute 'unsqueeze'"
        # a scan step sliced to a length read from its input (an unbacked size) while autograd traces it
        r"|call_function scan\(.*is not tracked with proxy"
        # the legacy tracer's assertion on a graph value that requires grad (a tensor attribute written
        # with a layer's output: LLaMA's reference KV cache)
        r"|!v\.requires_grad\(\) INTERNAL ASSERT FAILED",
        "no tensor reachable from the model requires grad while exporting: the weights of modules held in plain "
        "lists, dicts or Python objects (not registered, so recorded as constants by the legacy tracer, which "
        "refuses them while they require grad), tensor attributes computed from weights in __init__ (no leaf: "
        "detached), and the operands of a torch scan (torch.onnx's decompositions "
        "trace its autograd forward, which stacks saved symbolic sizes as tensors when a dim is dynamic: "
        "'SymInt' object has no attribute 'unsqueeze'), and loses the size a step reads from its input "
        "('u0 ... is not tracked with proxy'); the same values, the flags restored afterwards",
        (),
        contexts=("gradients_off",),
    ),
    "slice_bounds_int64": ExportRepair(
        r"Type parameter \(Tind\) of Optype \(Slice\) bound to different types",
        "the legacy exporter's Slice bounds that are graph values of another integer type (an int32 length "
        "read out of a tensor, `x[i, :, :seq_len[i]]`) cast to int64, the type of its other bounds, which "
        "onnxruntime requires of them all: the same values (exporter/slice_bounds.py)",
        (),
        contexts=("slice_bounds_int64",),
    ),
    "bool_scalars_as_ints": ExportRepair(
        r"We don't have an op for aten::\w+ but it isn't a special case",
        "arithmetic between a tensor and a Python bool (BEVFormer's `can_bus * self.use_can_bus`) and a bool fill value "
        "(`mask.masked_fill(pad, True)`) run with the bool as the int it equals while exporting, a bool tensor's "
        "product or sum computed on uint8 and read back as bool "
        "(exporter/bool_scalars.py): the legacy tracer records `aten::mul(Tensor, bool)`, which TorchScript has no "
        "schema for; the same values and dtype",
        (),
        contexts=("bool_scalars_as_ints",),
        counts_use=True,
    ),
    "dead_comparisons_dropped": ExportRepair(
        r"Error calling operator '(?:LessOrEqual|Less|GreaterOrEqual|Greater|Equal)' with args \(.*-?\d{19,}\)",
        "the size comparisons of torch.export's runtime assertions, left behind unread when torch.onnx removes "
        "the assertions, erased before the translation, which cannot hold a bound beyond int64 (`u1 <= "
        "46116860184273879030` after a `min(k, n)` of a selection's size): nothing reads them, so nothing "
        "computed changes (exporter/dead_comparisons.py)",
        (),
        contexts=("dead_comparisons_dropped",),
    ),
    "causal_mask_check_off": ExportRepair(
        r"(?!)",
        "nn.Transformer / TransformerEncoder / TransformerDecoder given a mask and no `is_causal` hint compare "
        "the mask's values with a causal one (`_detect_is_causal_mask`), a branch on tensor values torch.export "
        "cannot follow: while exporting the hint is the one passed (none: not causal), so the layers apply "
        "the given mask (exporter/nn_layers.py; eager keeps the check)",
        (),
        contexts=("causal_mask_check_off",),
        frame=r"torch[\\/]nn[\\/]modules[\\/]transformer\.py:_detect_is_causal_mask$",
    ),
    "size_tensors_kept": ExportRepair(
        r"non-zero number of elements, but its data is not allocated yet|" + DATA_DEPENDENT +
        # a size tensor's constant specializes the sizes it was built from (detectron2's ImageList)
        r"|conflicts between user-specified ranges and inferred ranges",
        "a tensor built from sizes while torch.export traces (Deformable DETR's `spatial_shapes = "
        "torch.as_tensor([(h, w), ...])`) stacked from its sizes as graph values, and read back as those "
        "SymInts (`for H, W in spatial_shapes`, `[lvl]`, `.unbind()`, `.tolist()`, `.item()`): torch.as_tensor "
        "of SymInts records the example's sizes as a constant, and values read out of a tensor are unbacked, "
        "so a split or view by them fails or keeps no size (exporter/size_tensors.py; eager untouched)",
        (),
        contexts=("size_tensors_kept",),
        static_codes=("ONX205",),
        counts_use=True,  # named by common guard errors: kept only where it built or read back a size tensor
    ),
    # tried on facts: a dynamo export failed on a data-dependent value and the model holds a 0-d
    # int64 buffer (repair_candidates.py), not on that common error alone
    BUFFERS_KEY: ExportRepair(
        r"(?!)",
        "a module's 0-d integer buffers read as the ints they hold while exporting (DDSP-SVC's "
        "`register_buffer(\"win_length\", torch.tensor(256))` passed as stft's n_fft): torch.export lifts a "
        "buffer into a graph input, so an int read from it is a value out of the data, where in the ONNX model "
        "a buffer is a constant initializer (exporter/number_buffers.py; eager untouched)",
        (),
        contexts=("int_buffers_as_numbers",),
        counts_use=True,  # kept only where the model holds such a buffer
    ),
    "packed_as_padded": ExportRepair(
        r"(?!)",
        "packed sequences carried as the padded batch they came from while exporting (exporter/packed_sequences.py): "
        "pack_padded_sequence keeps the padded batch and the sorted lengths, nn.LSTM / nn.GRU / nn.RNN run each layer and "
        "direction over it (the reverse direction on each sequence reversed within its length) with outputs past a "
        "length zeroed and the last hidden state taken at each length, and pad_packed_sequence pads with its value "
        "to the longest length; the packed data's size is the lengths' sum, which torch.export cannot follow and the "
        "legacy tracer records (an LSTM's last cell state is not computed: NaN, so a model reading it is not repaired)",
        (),
        contexts=("packed_as_padded",),
        frame=r"torch[\\/]nn[\\/](?:utils[\\/]rnn\.py:(?:pack_padded_sequence|pad_packed_sequence)|modules[\\/]rnn\.py:forward)$",
    ),
    # tried on facts: a dynamo export failed and the model holds an LSTM or a GRU (repair_candidates.py);
    # and on an LSTM with projections refused (legacy) or translated without them (onnxruntime)
    RNN_LOOPS_KEY: ExportRepair(
        r"LSTMs with projections|Input initial_c must have shape",
        "nn.LSTM and nn.GRU exported through torch.export's while_loop decomposition of the recurrence for the whole "
        "export (exporter/nn_layers.py): torch.onnx registers it only while torch.export captures the graph, and its "
        "later decompositions meet the layers' own Python loop over the time steps, which fixes the sequence length "
        "to the example's, so a reshape or a mask by the time dim after the layer is a constant in the ONNX model; "
        "an LSTM with projections (`proj_size`) takes the loop at any length, since the ONNX LSTM it is otherwise "
        "translated to has no projection (onnxruntime: `Input initial_c must have shape`), and under the legacy "
        "exporter, which refuses projections, a TorchScript loop per layer (exporter/projected_lstm.py); "
        "the same cell update per step; nn.RNN (tanh / relu), which torch.export otherwise unrolls at the "
        "example's length, through onnxfix's loop of the same form (exporter/elman_loops.py). Outside onnxfix: `with torch.export._patches."
        "register_lstm_while_loop_decomposition(): torch.onnx.export(...)`",
        (),
        contexts=("rnn_while_loops",),
        counts_use=True,  # a layer whose length is static (only the batch is dynamic) is left as it was
    ),
    "attributes_as_buffers": ExportRepair(
        r"Mutating module attribute \w+ during export|Constant [\w.]+ is mutated in the forward method",
        "plain tensor attributes of the model's modules (a KV cache kept as `self.cache_k = torch.zeros(...)`, "
        "reassigned and written in forward: LLaMA's reference attention) registered as non-persistent buffers "
        "while exporting (exporter/unregistered.py): torch.export refuses to mutate a module attribute but takes "
        "a buffer's mutation; the exported model computes what the call computes from the state it starts with; "
        "the same tensors are attributes again afterwards",
        (),
        contexts=("attributes_as_buffers",),
        counts_use=True,
    ),
    "state_dict_standard": ExportRepair(
        r"state_dict\(\) (?:got an unexpected keyword argument|takes \d+ positional argument)",
        "a module whose class overrides `state_dict` with another signature (KonfAI's `def state_dict(self)`) gets "
        "nn.Module's own while exporting: the legacy exporter collects the parameters to trace by calling "
        "`state_dict(keep_vars=True)` on the model, and nn.Module's passes `destination`, `prefix` and `keep_vars` "
        "to every submodule (exporter/model_state.py; eager and the class untouched)",
        (),
        contexts=("state_dict_standard",),
        counts_use=True,
    ),
    "custom_ops_inlined": ExportRepair(
        # dynamo: no ONNX function for a library's overload, or no fake kernel to capture it with;
        # legacy: an unknown namespace, or an output type it cannot give the op
        rf"No ONNX function found for <OpOverload\(op='(?!aten\.|prims\.{_DECOMPOSED_CUSTOM_OPS})\w+\."
        r"|tensor's device must be `meta`, got \w+ instead"
        rf"|unrecognized namespace (?!aten::{_DECOMPOSED_CUSTOM_OPS.replace(chr(92) + '.', '::')})\w+::"
        rf"|unsupported output type: \w+, from operator: (?!aten::{_DECOMPOSED_CUSTOM_OPS.replace(chr(92) + '.', '::')})\w+::",
        "a torch.library operator of another library (`torch.ops.xformers...`, `flash_attn::...`) with a kernel "
        "written in Python for every device or the CPU runs that kernel while exporting, so both exporters trace "
        "the torch operations it is made of (exporter/custom_ops.py; eager calls the operator)",
        (),
        contexts=("custom_ops_inlined",),
        counts_use=True,
    ),
    # tried as a last resort: a dynamo export ran and is wrong or fails in onnxruntime, and nothing
    # else names a repair (repair_candidates._last_resort)
    FLOOR_KEY: ExportRepair(
        r"(?!)",
        "floor division of sizes in the exported program translated with Python's rounding while exporting "
        "(exporter/floor_division.py): sympy rewrites a division of a difference that is never negative into "
        "one of a negative numerator (the end of SD3's centered crop, `(16 - h) // 2 + h`, becomes `h + 8 + (-h) // 2`), and "
        "torch.onnx's translation of `operator.floordiv` is ONNX Div, which truncates toward zero, silently "
        "wrong for an odd size; the same quotient wherever it was right. Outside onnxfix: torch.onnx.export's "
        "`custom_translation_table={operator.floordiv: ...}`",
        (),
        contexts=(FLOOR_KEY,),
        counts_use=True,  # kept only where the program had a floor division of sizes
    ),
    "mha_fastpath_off": ExportRepair(
        r"aten::(?:_native_multi_head_attention|_transformer_encoder_layer_fwd)\b",
        "nn.MultiheadAttention's and nn.TransformerEncoderLayer's fused inference kernels (their 'fast path', "
        "taken in eval mode without gradients) turned off while exporting: the layers' own composite path is "
        "traced instead (the legacy exporter has no symbolic for the fused ops; eager keeps them)",
        (),
        contexts=("mha_fastpath_off",),
    ),
    "unflatten_traced_sizes": ExportRepair(
        r"unflattened_size must be (?:a )?tuple of ints, but found (?:element of )?type (?:Tensor|SymInt)",
        "nn.Unflatten built in forward from the input's shape (MiDaS / DPT's `nn.Unflatten(2, torch.Size([h // 16, "
        "w // 16]))`) takes the traced sizes while exporting: its constructor requires Python ints, and the legacy "
        "tracer hands sizes over as 0-d tensors; the layer's forward (`Tensor.unflatten`) traces them "
        "(exporter/legacy_gaps.py; eager untouched)",
        (),
        contexts=("unflatten_traced_sizes",),
        counts_use=True,
    ),
    "copy_symbolic": ExportRepair(
        r"operator 'aten::copy' to ONNX",
        "a whole tensor overwritten in place (`torch.empty_like(w, dtype=d).copy_(w)`, ComfyUI's manual-cast "
        "weights), which the legacy exporter turns into `aten::copy` and has no symbolic for, exported as the source "
        "cast to the tensor's dtype and broadcast to its shape (ONNX Cast and Expand, what copy_ writes) "
        "(exporter/legacy_gaps.py; eager untouched)",
        (),
        contexts=("copy_symbolic",),
        counts_use=True,
    ),
}

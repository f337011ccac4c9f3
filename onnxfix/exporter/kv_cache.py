"""Decoder-with-past: a transformers language model exported with its KV cache.

A decoder returns its cache (a transformers ``Cache``: ``DynamicCache`` and friends) when
``config.use_cache`` is on, the default, and generation needs it: every step after the first
feeds the keys and values of the tokens seen so far back in. torch.export cannot flatten the
cache class, and a runtime feeds tensors, not Python objects. So onnxfix exports the model the way
optimum's ``*-with-past`` exports lay it out: ``DecoderWithPast`` takes ``input_ids``,
``attention_mask`` and the past as flat tensors ``past_key_values.{i}.key`` / ``.value``, builds
the cache inside forward, and returns ``logits`` and ``present.{i}.key`` / ``.value``. Batch,
sequence, past sequence and total sequence (past + new tokens, the mask's length) are dynamic.

The proof is a generation (``generation_probes``): a prefill with a past of length 0, then decode
steps that feed each step's present cache from onnxruntime back as the next step's past, against
eager transformers on the same tokens, at two batch sizes and two prompt lengths.
"""

from __future__ import annotations

import inspect
import types

import torch

from onnxfix.exporter.comparison import Runtime, compare, runtime_error
from onnxfix.exporter.result import ProbeResult

BATCH, SEQUENCE, PAST, TOTAL = "batch", "sequence", "past_sequence", "total_sequence"
WINDOW_PAST = "past_window_sequence"  # the past of a sliding-window layer beside full-attention ones
WINDOW_PRESENT = "present_window_sequence"  # its present (legacy names output dims only when told)
# (batch, prompt length) of each checked generation, and the decode steps after each prefill
GENERATIONS = ((1, 5), (3, 2))
DECODE_STEPS = 2
REACH = max(prompt for _, prompt in GENERATIONS) + DECODE_STEPS - 1  # most tokens a step sees as past


def is_cache(value) -> bool:
    """A transformers cache object, recognised without importing transformers."""
    return any(c.__name__ == "Cache" and c.__module__.startswith("transformers") for c in type(value).__mro__)


def returns_cache(model: torch.nn.Module, args: tuple) -> bool:
    """A decoder-only transformers model that takes or returns a DynamicCache on these inputs
    (one eager call). Encoder-decoder caches and the fixed-size cache classes keep the model's
    own layout (ONX916 reports them, with use_cache=False as the way out)."""
    config = getattr(model, "config", None)
    if config is None or getattr(config, "is_encoder_decoder", False) or "input_ids" not in _parameters(model):
        return False
    if any(is_cache(a) for a in args):
        return any(type(a).__name__ == "DynamicCache" for a in args)
    if not getattr(config, "use_cache", False):
        return False
    try:
        with torch.no_grad():
            output = model(*args)
    except Exception:  # verify reports the eager failure itself
        return False
    values = output.values() if hasattr(output, "values") else output if isinstance(output, tuple) else ()
    return any(type(v).__name__ == "DynamicCache" and is_cache(v) for v in values)


class DecoderWithPast(torch.nn.Module):
    """The model with its cache as flat tensors: forward(input_ids, attention_mask, *past)."""

    def __init__(self, model: torch.nn.Module, pasts: list[str], windows: tuple[int, ...] = ()):
        """``pasts``: each layer's past-length dim name (PAST, or WINDOW_PAST for a window layer)."""
        super().__init__()
        self.model = model
        layers = len(pasts)
        pairs = [(f"{i}.key", f"{i}.value") for i in range(layers)]
        self.onnxfix_input_names = ["input_ids", "attention_mask"] + [f"past_key_values.{n}" for p in pairs for n in p]
        self.onnxfix_output_names = ["logits"] + [f"present.{n}" for p in pairs for n in p]
        # the legacy exporter names only the output dims it is told (dynamo derives them from the inputs')
        self.onnxfix_output_axes = {"logits": {0: BATCH, 1: SEQUENCE}, **{
            name: {0: BATCH, 2: f"{PAST} + {SEQUENCE}" if pasts[i // 2] == PAST else WINDOW_PRESENT}
            for i, name in enumerate(self.onnxfix_output_names[1:])}}  # a window caps its present too
        self.onnxfix_layout = (f"decoder with past ({layers} layer{'' if layers == 1 else 's'}): input_ids, attention_mask, past_key_values.{{i}}.key/.value "
                       f"-> logits, present.{{i}}.key/.value (dynamic {BATCH}, {SEQUENCE}, {PAST}, {TOTAL})")
        unreached = [w for w in windows if w > REACH]
        if unreached:  # the window's own code path (the window full) did not run in the proof
            self.onnxfix_layout += (f"; sliding window of {', '.join(map(str, unreached))} tokens: the generation checked "
                            f"({REACH + 1} tokens) does not fill it")

    def forward(self, input_ids, attention_mask, *past):
        from transformers import DynamicCache

        pairs = [(past[i], past[i + 1]) for i in range(0, len(past), 2)]
        cache = DynamicCache(ddp_cache_data=pairs, config=self.model.config)
        seen = attention_mask.shape[1] - input_ids.shape[1]  # the mask covers every token seen
        for layer in cache.layers:
            if getattr(layer, "is_sliding", False):  # it keeps only the window, not the count
                layer.cumulative_length = seen
                layer.get_mask_sizes = types.MethodType(_window_mask_sizes, layer)
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, past_key_values=cache, use_cache=True)
        return (out.logits, *cache_tensors(out.past_key_values))


def _window_mask_sizes(layer, query_length: int):
    """transformers' DynamicSlidingWindowLayer.get_mask_sizes (kv length and offset), with min and
    max for its branch on whether the window is full: the same sizes, and no branch on the tokens
    seen for torch.export to specialize (seen >= window gives window - 1 either way)."""
    seen, window = layer.cumulative_length, layer.sliding_window
    if isinstance(seen, torch.Tensor):  # the legacy tracer's sizes are 0-d tensors
        return seen.clamp(max=window - 1) + query_length, (seen - window + 1).clamp(min=0)
    return torch.sym_min(seen, window - 1) + query_length, torch.sym_max(seen - window + 1, 0)


def cache_tensors(cache) -> list[torch.Tensor]:
    """Keys and values, layer by layer (the order of the past_key_values inputs)."""
    return [t for layer in cache.layers for t in (layer.keys, layer.values)]


def decoder_with_past(model: torch.nn.Module, args: tuple):
    """(wrapper, example args, dynamic dims by input index) for the model and the user's inputs:
    ``input_ids`` (and a cache, when the inputs hold one) are read by forward's parameter names.
    The example is a decode step of two new tokens after a past (the user's cache, else a
    prefill of the user's tokens), with a batch of at least 2 (torch.export specializes 1)."""
    given = _by_name(model, args)
    input_ids = given.get("input_ids")
    if not isinstance(input_ids, torch.Tensor):
        raise ValueError("a decoder with past needs `input_ids` among the inputs")
    cache = next((a for a in args if is_cache(a) and a.get_seq_length() > 0), None)
    new = input_ids
    if cache is None:  # the past of a prefill of the user's tokens, then two of them again
        with torch.no_grad():
            cache = model(input_ids=input_ids, use_cache=True).past_key_values
        new = input_ids[:, -2:]
    past = cache_tensors(cache)
    if new.shape[0] == 1:  # the batch of the example: torch.export specializes a size of 1
        new, past = new.repeat(2, 1), [t.repeat(2, *[1] * (t.dim() - 1)) for t in past]
    # the mask covers every token seen (a sliding-window layer keeps fewer)
    mask = torch.ones(new.shape[0], cache.get_seq_length() + new.shape[1], dtype=torch.long)
    windows = tuple(sorted({w for layer in cache.layers if (w := getattr(layer, "sliding_window", None))}))
    sliding = [bool(getattr(layer, "is_sliding", False)) for layer in cache.layers]
    pasts = [WINDOW_PAST if s and not all(sliding) else PAST for s in sliding]  # a window caps its own
    wrapper = DecoderWithPast(model, pasts, windows).eval()
    dynamic = {0: {0: BATCH, 1: SEQUENCE}, 1: {0: BATCH, 1: TOTAL}}
    dynamic.update({2 + i: {0: BATCH, 2: pasts[i // 2]} for i in range(len(past))})
    return wrapper, (new, mask, *past), dynamic


def _parameters(model: torch.nn.Module) -> list[str]:
    return list(inspect.signature(model.forward).parameters)


def _by_name(model: torch.nn.Module, args: tuple) -> dict:
    return dict(zip(_parameters(model), args))


def generation_probes(wrapper: DecoderWithPast, runtime: Runtime, vocab: int | None = None) -> list[ProbeResult]:
    """Prefill + DECODE_STEPS greedy steps per GENERATIONS entry: onnxruntime's present cache is
    the next step's past; eager transformers runs the same tokens with its own cache. Every
    step compares the logits and each present tensor (values and lengths)."""
    model, names = wrapper.model, wrapper.onnxfix_input_names
    vocab = vocab or model.config.get_text_config(decoder=True).vocab_size
    generator = torch.Generator().manual_seed(0)
    results = []
    for batch, prompt in GENERATIONS:
        tokens = torch.randint(0, vocab, (batch, prompt), generator=generator)
        mask = torch.ones(batch, prompt, dtype=torch.long)
        past, cache = None, None
        for step in range(1 + DECODE_STEPS):
            label = f"generation batch {batch}, prompt {prompt}: " + ("prefill" if step == 0 else f"decode step {step}")
            with torch.no_grad():
                out = model(input_ids=tokens, attention_mask=mask, past_key_values=cache, use_cache=True)
            cache = out.past_key_values
            expected = [out.logits, *cache_tensors(cache)]
            if past is None:  # the prefill: a past of length 0 with the cache's head and width
                past = [torch.zeros(batch, t.shape[1], 0, *t.shape[3:], dtype=t.dtype) for t in expected[1:]]
            try:
                actual = runtime.run((tokens, mask, *past), names)
            except Exception as exc:
                results.append(ProbeResult(label, ok=False, note=f"onnxruntime: {runtime_error(exc)}"))
                return results
            results.append(_result(label, compare(expected, actual)))
            if not results[-1].ok:
                return results
            past = [torch.from_numpy(a) for a in actual[1:]]
            tokens = out.logits[:, -1:].argmax(-1)
            mask = torch.cat([mask, torch.ones(batch, 1, dtype=torch.long)], 1)
    return results


def _result(label: str, outputs) -> ProbeResult:
    complete = all(o.max_abs is not None for o in outputs)
    note = "; ".join(f"output {o.index}: {o.note}" for o in outputs if o.note)
    return ProbeResult(label, max_abs=max(o.max_abs for o in outputs) if complete else None,
                       max_rel=max(o.max_rel for o in outputs) if complete else None,
                       ok=all(o.ok for o in outputs), note=note, outputs=outputs)


def prepare(model: torch.nn.Module, args: tuple, probes: list, dynamic: dict):
    """The export worker's inputs, as they are unless the model takes or returns a cache: then
    the decoder-with-past wrapper, its example and dims, and no probes of the user's layout
    (the generation replaces them)."""
    model.eval()
    if not returns_cache(model, args):
        return model, args, probes, dynamic
    wrapper, example, dims = decoder_with_past(model, args)
    if probes or dynamic:  # say so: the user asked for them
        wrapper.onnxfix_layout += "; the dynamic dims and probe inputs given are replaced by these dims and the generation"
    return wrapper, example, [], dims

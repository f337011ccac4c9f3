"""Child process of transformers_equivalence.py: build small models, run them, save outputs.

usage: python transformers_worker.py REQUEST.json
REQUEST: {"archs": [...], "variant": "original"|"rewritten", "out": DIR, "watch": {file: [lines]}}
The "rewritten" variant runs with the rewritten copy first on PYTHONPATH, loads the weights the
"original" variant saved, and records which watched (changed) lines ran.
"""

from __future__ import annotations

import importlib
import json
import sys
import time
import traceback
import warnings
from pathlib import Path

# Sizes that make every model tiny; applied to the config and its sub-configs when present.
SMALL = dict(
    hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, intermediate_size=64,
    head_dim=8, n_embd=32, n_layer=2, n_head=4, d_model=32, encoder_layers=2, decoder_layers=2,
    encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64,
    num_layers=2, num_heads=4, d_ff=64, d_kv=8, embed_dim=32, max_position_embeddings=64, num_experts=4,
    num_local_experts=4, moe_intermediate_size=32, image_size=32, patch_size=8, attention_hidden_size=32,
)


def text(cfg, torch, length=7):
    return {"input_ids": torch.randint(3, 90, (2, length))}


def image(cfg, torch, size=32, channels=None):
    channels = channels or getattr(cfg, "num_channels", 3)
    return {"pixel_values": torch.randn(2, channels, size, size)}


# arch (folder under transformers/models) -> how to build and feed it.
#   model_type: config key (default: the arch); cls: model class (default AutoModel);
#   shrink: apply SMALL (default True); config: overrides after shrinking; inputs(cfg, torch).
RECIPES = {
    "flava": {"inputs": lambda cfg, torch: {**text(cfg, torch), **image(cfg.image_config, torch, 32)}},
    "ibert": {"config": {"quant_mode": True}, "inputs": text},
    "janus": {"model_type": "janus_vqgan", "cls": "JanusVQVAE", "shrink": False, "config": {"resolution": 32}, "call": "encode",
              "inputs": lambda cfg, torch: image(cfg, torch, 32, 3)},
    "chameleon": {"model_type": "chameleon_vqgan", "cls": "ChameleonVQVAE", "shrink": False, "call": "encode",
                  "config": {"resolution": 32}, "inputs": lambda cfg, torch: image(cfg, torch, 32, 3)},
    "llama4": {"inputs": text},
    "llava_onevision": {"inputs": text},
    "mra": {"inputs": lambda cfg, torch: text(cfg, torch, 16)},
    "openai": {"model_type": "openai-gpt", "inputs": text},
    "ovis2": {"model_type": "ovis2_vision", "cls": "models.ovis2.modeling_ovis2.Ovis2VisionModel", "inputs": lambda cfg, torch: image(cfg, torch, 32)},
    "phimoe": {"inputs": text},
    "qwen3_vl": {"inputs": text},
    "qwen3_vl_moe": {"inputs": text},
    "mobilenet_v2": {"inputs": image},
    "segformer": {"cls": "SegformerForSemanticSegmentation", "inputs": lambda cfg, torch: image(cfg, torch, 64)},
    "vitdet": {"inputs": image},
    "hiera": {"shrink": False, "config": {"embed_dim": 16, "depths": [1, 1, 1, 1]}, "inputs": lambda cfg, torch: image(cfg, torch, 224)},
    "rwkv": {"inputs": text},
    "mllama": {"inputs": text},
    "udop": {
        "inputs": lambda cfg, torch: {
            "input_ids": torch.randint(3, 90, (2, 7)),
            "bbox": torch.rand(2, 7, 4),
            "decoder_input_ids": torch.randint(3, 90, (2, 5)),
        }
    },
    "clipseg": {"inputs": lambda cfg, torch: {**text(cfg, torch), **image(cfg, torch, 32)}},
    "superpoint": {"cls": "SuperPointForKeypointDetection", "shrink": False, "inputs": lambda cfg, torch: image(cfg, torch, 64, 1)},
    "perceiver": {"inputs": lambda cfg, torch: {"inputs": torch.randn(2, 7, cfg.d_model)}},
    "efficientloftr": {
        "cls": "EfficientLoFTRForKeypointMatching",
        "shrink": False,
        "inputs": lambda cfg, torch: {"pixel_values": torch.rand(1, 2, 3, 64, 64)},
    },
    "reformer": {"shrink": False, "inputs": lambda cfg, torch: text(cfg, torch, 64)},
    "bert": {"inputs": text},
    "gpt2": {"inputs": text},
    "llama": {"inputs": text},
    "vit": {"inputs": image},
}


def build(arch: str, recipe: dict, configure=None):
    """The model from a small config, and its inputs; ``configure(config)`` runs after the
    recipe's overrides (transformers_export.py turns the KV cache off there)."""
    import torch
    import transformers
    from transformers import AutoConfig, PretrainedConfig
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES, model_type_to_module_name

    model_type = recipe.get("model_type") or next(t for t in CONFIG_MAPPING_NAMES if model_type_to_module_name(t) == arch)
    config = AutoConfig.for_model(model_type)
    if recipe.get("shrink", True):
        shrink(config, PretrainedConfig)
    for key, value in recipe.get("config", {}).items():
        setattr(config, key, value)
    if configure is not None:
        configure(config)
    torch.manual_seed(0)
    cls = resolve(transformers, recipe.get("cls", "AutoModel"))
    model = cls.from_config(config) if cls is transformers.AutoModel else cls(config)
    torch.manual_seed(1)
    return model.eval(), recipe["inputs"](config, torch)


def resolve(package, dotted: str):
    obj = package
    for part in dotted.split("."):
        obj = getattr(obj, part) if hasattr(obj, part) else importlib.import_module(f"{obj.__name__}.{part}")
    return obj


def shrink(config, config_type, depth: int = 0) -> None:
    for key, value in SMALL.items():
        current = getattr(config, key, None)
        if isinstance(current, int) and not isinstance(current, bool):
            try:
                setattr(config, key, value)
            except Exception:  # a read-only derived attribute
                pass
    for key in list(vars(config)):
        sub = getattr(config, key, None)
        if isinstance(sub, config_type) and depth < 3:
            shrink(sub, config_type, depth + 1)


def flatten(output):
    """Model outputs as nested tuples of tensors (ModelOutput -> to_tuple())."""
    if hasattr(output, "to_tuple"):
        output = output.to_tuple()
    if isinstance(output, (list, tuple)):
        return tuple(flatten(o) for o in output)
    if hasattr(output, "get_seq_length"):  # a KV cache: compare its tensors
        return tuple(flatten(getattr(layer, "keys", None)) for layer in getattr(output, "layers", ()))
    return output


def count_tensors(output) -> int:
    if isinstance(output, tuple):
        return sum(count_tensors(o) for o in output)
    return int(hasattr(output, "dtype"))


class LineWatcher:
    """Which of the watched (file, line) pairs ran: a settrace limited to the watched files."""

    def __init__(self, watch: dict[str, list[int]]):
        self.watch = {file: set(lines) for file, lines in watch.items()}
        self.ran: set[tuple[str, int]] = set()

    def __enter__(self):
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc):
        sys.settrace(None)

    def _global(self, frame, event, arg):
        lines = self.watch.get(frame.f_code.co_filename)
        if lines is None:
            return None

        def local(frame, event, arg):
            if event == "line" and frame.f_lineno in lines:
                self.ran.add((frame.f_code.co_filename, frame.f_lineno))
            return local

        return local


def run_one(arch: str, variant: str, out: Path, watch: dict) -> dict:
    import torch

    started = time.perf_counter()
    model, inputs = build(arch, RECIPES[arch])
    weights = out / f"{arch}.weights.pt"
    if variant == "original":
        torch.save(model.state_dict(), weights)
    else:
        model.load_state_dict(torch.load(weights, weights_only=True), strict=True)
    torch.manual_seed(2)
    with torch.no_grad(), LineWatcher(watch) as watcher:
        output = flatten(getattr(model, RECIPES[arch].get("call", "__call__"))(**inputs))
    torch.save(output, out / f"{arch}.{variant}.pt")
    ran = sorted(f"{Path(f).name}:{line}" for f, line in watcher.ran)
    return {"status": "ok", "tensors": count_tensors(output), "ran": ran, "seconds": time.perf_counter() - started}


def main() -> None:
    warnings.filterwarnings("ignore")
    request = json.loads(Path(sys.argv[1]).read_text())
    import torch
    import transformers

    torch.set_num_threads(1)
    out = Path(request["out"])
    where = str(Path(transformers.__file__).parent)
    expected_in_copy = request["variant"] == "rewritten"
    if where.startswith(str(out)) != expected_in_copy:  # the harness must import the right copy
        raise SystemExit(f"{request['variant']} worker imported transformers from {where}")
    report = {}
    for arch in request["archs"]:
        try:
            report[arch] = run_one(arch, request["variant"], out, request["watch"])
        except Exception as exc:
            report[arch] = {"status": "error", "error": f"{type(exc).__name__}: {str(exc)[:300]}"}
            traceback.print_exc(limit=3)
        (out / f"report-{request['variant']}.json").write_text(json.dumps(report))


if __name__ == "__main__":
    main()

"""The run-time evidence recorder's overhead on one eager forward of a real transformers model.

    PYTHONPATH=. .venv/bin/python bench/recorder_overhead.py [ROUNDS]

A tiny GPT-2 (transformers' own modeling code, built offline from a config, use_cache off),
called through a small wrapper module in this file: the wrapper is "the user's file", the
transformers code in site-packages is not, exactly as `onnxfix export --fix` records a user's
model that uses a library. Rounds alternate plain and recorded forwards (one forward each, a
fresh recorder with a cold file cache each time, as in the one run of `export --fix`); the
ratio is the median of the paired ratios (each recorded forward against the plain one just
before it), measured in one run; the ratio of the medians is written too. Writes bench/out/recorder_overhead.json.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import torch
from transformers import GPT2Config, GPT2LMHeadModel

from onnxfix.exporter import recorder as recorder_module
from onnxfix.exporter.recorder import Recorder


class Wrapper(torch.nn.Module):
    """The user's model: a head over a library model."""

    def __init__(self):
        super().__init__()
        config = GPT2Config(n_layer=2, n_embd=64, n_head=4, n_positions=128, vocab_size=1024, use_cache=False,
                            bos_token_id=0, eos_token_id=0)
        self.gpt2 = GPT2LMHeadModel(config).eval()

    def forward(self, ids):
        logits = self.gpt2(input_ids=ids).logits
        scale = logits.shape[-1] ** -0.5
        return logits * scale


def main(rounds: int = 101) -> dict:
    torch.manual_seed(0)
    model = Wrapper().eval()
    ids = torch.randint(0, 1024, (1, 32))
    plain, recorded = [], []
    with torch.no_grad():
        for _ in range(3):
            model(ids)  # warm-up: first-call costs are not the recorder's
        for _ in range(rounds):
            started = time.perf_counter()
            model(ids)
            plain.append(time.perf_counter() - started)
            recorder_module._user_file.cache_clear()  # cold, as in the one run of `export --fix`
            started = time.perf_counter()
            with Recorder() as recorder:
                model(ids)
            recorded.append(time.perf_counter() - started)
    functions = sum(len(v) for v in recorder.by_file().values())
    result = {
        "model": "GPT2LMHeadModel n_layer=2 n_embd=64 seq=32 batch=1 (transformers " + __import__("transformers").__version__ + ")",
        "rounds": rounds,
        "plain_median_s": round(statistics.median(plain), 5),
        "recorded_median_s": round(statistics.median(recorded), 5),
        "ratio_of_medians": round(statistics.median(recorded) / statistics.median(plain), 3),
        # each recorded forward against the plain one just before it: robust to load drifting
        "ratio": round(statistics.median(r / p for r, p in zip(recorded, plain)), 3),
        "user_functions_recorded": functions,
        "torch_threads": torch.get_num_threads(),
    }
    out = Path(__file__).resolve().parent / "out" / "recorder_overhead.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    return result


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]) if len(sys.argv) > 1 else 101), indent=2))

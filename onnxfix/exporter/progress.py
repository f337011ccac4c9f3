"""Progress while exporting: one tqdm bar over the stages of every export, on stderr.

Why tqdm: exports take seconds to minutes in a child process, so the useful display is "which
target, which exporter, which stage, how long so far". tqdm does that with no dependencies of
its own and a cheap import; it is imported only here, and only when stderr is a terminal.
"""

from __future__ import annotations

import sys

from onnxfix.exporter.result import STAGES
from onnxfix.exporter.session import NoProgress


class StageBar:
    def __init__(self, exports: int):
        from tqdm import tqdm

        self.bar = tqdm(total=exports * len(STAGES), file=sys.stderr, unit="stage", leave=False,
                        bar_format="{desc} |{bar:20}| {elapsed}")
        self.label = ""
        self.done_stages = 0

    def start(self, label: str) -> None:
        self.label, self.done_stages = label, 0
        self.bar.set_description_str(label)

    def stage(self, stage: str) -> None:
        if stage in STAGES:
            index = STAGES.index(stage)
            if index > self.done_stages:
                self.bar.update(index - self.done_stages)
                self.done_stages = index
        self.bar.set_description_str(f"{self.label} {stage}")

    def tick(self) -> None:
        self.bar.refresh()

    def done(self) -> None:
        self.bar.update(len(STAGES) - self.done_stages)
        self.done_stages = len(STAGES)

    def close(self) -> None:
        self.bar.close()


def make_progress(exports: int, enabled: bool):
    if not enabled or not sys.stderr.isatty():
        return NoProgress()
    try:
        return StageBar(exports)
    except ImportError:  # tqdm comes with onnxfix[export]; without it, no bar
        return NoProgress()

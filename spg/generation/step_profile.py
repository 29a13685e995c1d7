"""Where a decoding step's time goes: the model's forward against everything around it, and the reads that make the
host wait for the device (issue 41; benchmarks/decode_step.py prints them, tests/test_decode_step.py counts them).

A step of transformers' ``generate`` is one forward, then on the host the logits processors (grammar, loop control,
pointer states, sampling), the stopping criteria and the bookkeeping of the next step's inputs. On a GPU the host
work overlaps the device's as long as the host never reads a device value: each read (``.item()``, ``.tolist()``,
``bool(tensor)``, ``.cpu()``, ...) waits until every queued kernel has run. So the profile counts those reads where they
are made outside the forward, on any device: on the CPU a read costs nothing, but the same code on a GPU waits there.
Each read is charged to the first caller outside torch (file and function), so a count says who reads.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import torch

# Tensor methods that hand a value to the host (on a device: wait for it)
READS = ("item", "tolist", "cpu", "numpy", "__bool__", "__int__", "__float__", "__index__")


@dataclass
class StepProfile:
    """What :func:`profiled` saw: forwards (their count and seconds inside them), the wall time of the block, and
    reads made outside a forward by caller."""

    forwards: int = 0
    prefills: int = 0  # forwards over more than one position per row: a call's prompt (or drafts)
    forward_seconds: float = 0.0
    step_seconds: float = 0.0  # of those, in the decoding steps' forwards
    seconds: float = 0.0
    reads: Counter = field(default_factory=Counter)  # "file:function" -> reads outside the forward
    _inside: int = 0

    @property
    def steps(self) -> int:
        """Forwards over one position per row: decoding steps."""
        return self.forwards - self.prefills

    @property
    def host_seconds(self) -> float:
        return self.seconds - self.forward_seconds


def _caller() -> str:
    frame = sys._getframe(2)
    while frame is not None and ("/torch/" in frame.f_code.co_filename or frame.f_code.co_filename.endswith(
            "step_profile.py")):
        frame = frame.f_back
    if frame is None:
        return "?"
    path = frame.f_code.co_filename
    short = path.split("site-packages/")[-1] if "site-packages/" in path else path.split("/spg/")[-1]
    return f"{short}:{frame.f_code.co_name}"


@contextlib.contextmanager
def profiled(model: torch.nn.Module) -> Iterator[StepProfile]:
    """Within the block, time every forward of ``model`` and count the host reads made outside them. On CUDA each
    forward is timed between two synchronisations (else it would time the kernels' launch), which makes the host wait
    twice a step: the times are then the forward's and the rest's own, not the overlapped run's."""
    model = model.get_base_model() if hasattr(model, "peft_config") else model  # a PeftModel's generate runs this one's
    profile = StepProfile()
    started: list[tuple[float, bool]] = []  # per forward under way: its start, whether it decodes one position per row

    synchronize = torch.cuda.synchronize if next(model.parameters(), torch.empty(0)).is_cuda else lambda: None

    def before(module, args, kwargs):
        synchronize()
        ids = kwargs.get("input_ids", args[0] if args else None)
        fed = ids.shape[-1] if ids is not None else 1
        profile.prefills += fed > 1
        profile._inside += 1
        started.append((time.perf_counter(), fed == 1))

    def after(module, args, kwargs, output):
        synchronize()
        start, step = started.pop()
        seconds = time.perf_counter() - start
        profile.forward_seconds += seconds
        profile.step_seconds += seconds if step else 0.0
        profile.forwards += 1
        profile._inside -= 1

    originals = {name: getattr(torch.Tensor, name) for name in READS}

    def counting(name):
        original = originals[name]

        def read(self, *args, **kwargs):
            if not profile._inside:
                profile.reads[_caller()] += 1
            return original(self, *args, **kwargs)

        return read

    hooks = [model.register_forward_pre_hook(before, with_kwargs=True),
             model.register_forward_hook(after, with_kwargs=True)]
    for name in READS:
        setattr(torch.Tensor, name, counting(name))
    start = time.perf_counter()
    try:
        yield profile
    finally:
        profile.seconds = time.perf_counter() - start
        for name, original in originals.items():
            setattr(torch.Tensor, name, original)
        for hook in hooks:
            hook.remove()

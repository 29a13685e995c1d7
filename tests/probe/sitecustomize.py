"""Watches the training processes that tests/test_distributed.py launches, so the command under test stays the
documented one, unchanged.

Python imports ``sitecustomize`` at start-up from ``sys.path``: the test puts this folder on ``PYTHONPATH`` and
sets ``SPG_PROBE_DIR``. Every process then appends what it did to ``SPG_PROBE_DIR/rank<RANK>.jsonl`` (each save of
a model, the dependent claims of each micro-batch it trained on, and the trainer's world size and model wrapper
once training ends) and writes its trainable weights to
``SPG_PROBE_DIR/weights-rank<RANK>.pt``. Without ``SPG_PROBE_DIR`` it does nothing.
"""

import os

if os.environ.get("SPG_PROBE_DIR"):
    import functools
    import json
    from pathlib import Path

    import torch
    from peft import PeftModel

    from spg.model.spg_model import SPGModel
    from spg.train.checkpoint import AdapterCheckpointTrainer

    PROBE = Path(os.environ["SPG_PROBE_DIR"])
    RANK = os.environ.get("RANK", "launcher")

    def record(**event) -> None:
        with (PROBE / f"rank{RANK}.jsonl").open("a") as f:
            f.write(json.dumps(event) + "\n")

    def recording_saves(save):
        @functools.wraps(save)
        def wrapper(self, directory, *args, **kwargs):
            record(event="save", directory=str(directory))
            return save(self, directory, *args, **kwargs)

        return wrapper

    def recording_training(train):
        @functools.wraps(train)
        def wrapper(self, *args, **kwargs):
            result = train(self, *args, **kwargs)
            weights = {n: p.detach().cpu() for n, p in self.model.named_parameters() if p.requires_grad}
            torch.save(weights, PROBE / f"weights-rank{RANK}.pt")
            record(event="trained", world_size=self.args.world_size, wrapper=type(self.model_wrapped).__name__)
            return result

        return wrapper

    def recording_batches(forward):
        @functools.wraps(forward)
        def wrapper(self, *args, **kwargs):
            if self.training and kwargs.get("claim_parent") is not None:
                record(event="batch", dependents=int((kwargs["claim_parent"] >= 0).sum()))
            return forward(self, *args, **kwargs)

        return wrapper

    SPGModel.forward = recording_batches(SPGModel.forward)
    SPGModel.save_pretrained = recording_saves(SPGModel.save_pretrained)
    PeftModel.save_pretrained = recording_saves(PeftModel.save_pretrained)
    AdapterCheckpointTrainer.train = recording_training(AdapterCheckpointTrainer.train)

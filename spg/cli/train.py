"""spg train stage1|stage2 --config FILE [key=value ...]: the two training stages.

Overrides are config keys (learning_rate=1e-4 max_steps=20). Stage I writes checkpoints to
output_dir/checkpoint-* every save_steps and the final model to output_dir/final, which other
commands take as --model. --resume continues from the last checkpoint (or the one given).
Runs unchanged under: accelerate launch -m spg.cli train stage1 ...

output_dir must be a new or empty folder, or one an earlier run of the same stage created: spg
marks the folders it creates with spg-run.json and writes into no other (exit 2 before any model
loads). A re-run keeps the previous output_dir/final as final.~1~ (~2~, ...).
"""

# The docstring above is the command's --help, hence plain text.

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

from spg.errors import InputError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train", help="train SPG (Stage I or Stage II)", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    stages = p.add_subparsers(dest="stage", required=True, metavar="STAGE")
    for stage, help_text in (
        ("stage1", "structure-aware fine-tuning: L_LM + γ·L_struct + η·L_scope (Eq. 6)"),
        ("stage2", "legal preference optimisation (LPO) on top of a Stage I model"),
    ):
        s = stages.add_parser(stage, help=help_text, description=help_text, epilog=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
        s.add_argument("--config", required=True, help="YAML config file (see configs/)")
        s.add_argument("overrides", nargs="*", metavar="KEY=VALUE", help="override config keys")
        if stage == "stage1":
            s.add_argument("--resume", nargs="?", const=True, default=None, metavar="CHECKPOINT",
                           help="resume from the last checkpoint in output_dir, or from CHECKPOINT")
        s.set_defaults(func=run)


def check_stage1(config, resume: str | bool | None) -> None:
    """What Stage I needs from this machine, checked before its model loads (its config is checked already)."""
    from transformers.utils import is_torch_bf16_gpu_available, is_torch_xla_available

    from spg.data import load_records

    load_records(config.train_file, split=config.train_split)  # a DataError now for a path that is not there
    # transformers.TrainingArguments' own condition, which it reports with a traceback.
    cpu = config.extra_training_args.get("use_cpu")
    if config.bf16 and not cpu and not is_torch_bf16_gpu_available() and not is_torch_xla_available():
        raise InputError("bf16 is true but this machine has no GPU with bfloat16; set bf16=false")
    if isinstance(resume, str) and not Path(resume).is_dir():
        raise InputError(f"--resume {resume}: no such checkpoint folder")


def run(args: argparse.Namespace) -> int:
    from spg.config import load_config
    from spg.files import folder_problem
    from spg.train.config import Stage1Config, Stage2Config

    config = load_config(Stage1Config if args.stage == "stage1" else Stage2Config, args.config, args.overrides,
                         available=True)
    problem = folder_problem(config.output_dir, config.RUN)
    if problem:
        raise InputError(f"output_dir={config.output_dir}: {problem}")
    # Imported only now: torch and transformers load once the config is known to be good.
    module = importlib.import_module(f"spg.train.{args.stage}")
    if args.stage == "stage1":
        check_stage1(config, args.resume)
        return module.main(config, resume=args.resume)
    return module.main(config, args.config)

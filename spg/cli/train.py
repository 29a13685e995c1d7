"""``spg train stage1|stage2 --config FILE [key=value ...]``: the two training stages.

Overrides are config keys (``learning_rate=1e-4 max_steps=20``). Stage I writes checkpoints to
``output_dir/checkpoint-*`` every ``save_steps`` and the final model to ``output_dir/final``, which other
commands take as ``--model``. ``--resume`` continues from the last checkpoint (or the one given).
Runs unchanged under ``accelerate launch -m spg.cli train stage1 ...``.
"""

from __future__ import annotations

import argparse
import importlib


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train", help="train SPG (Stage I or Stage II)", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    stages = p.add_subparsers(dest="stage", required=True, metavar="STAGE")
    for stage, help_text in (
        ("stage1", "structure-aware fine-tuning: L_LM + γ·L_struct + η·L_scope (Eq. 6)"),
        ("stage2", "legal preference optimisation (LPO) on top of a Stage I model"),
    ):
        s = stages.add_parser(stage, help=help_text, description=help_text)
        s.add_argument("--config", required=True, help="YAML config file (see configs/)")
        s.add_argument("overrides", nargs="*", metavar="KEY=VALUE", help="override config keys")
        if stage == "stage1":
            s.add_argument("--resume", nargs="?", const=True, default=None, metavar="CHECKPOINT",
                           help="resume from the last checkpoint in output_dir, or from CHECKPOINT")
        s.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # Imported here: torch and transformers load only when a stage runs; stage2 may be installed later.
    module = importlib.import_module(f"spg.train.{args.stage}")
    if args.stage == "stage1":
        return module.main(args.config, args.overrides, resume=args.resume)
    return module.main(args.config, args.overrides)

"""``spg pairs``: build the LPO preference set from a Stage I model (docs/stage2.md)."""

from __future__ import annotations

import argparse
import logging

from spg.cli.command import add_command
from spg.errors import InputError


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "pairs", run,
                    summary="sample Stage I candidates, score them with PatentScore_rule and write LPO preference pairs",
                    description="""
        For up to B training descriptions, sample one candidate per temperature from the Stage I model (`model`), score
        each against the reference claims with PatentScore_rule, and write up to three pairs per description
        (gt-vs-worst; best-vs-worst if the gap > kappa; gt-vs-best if the gap > delta) to the JSONL file `pairs`.
        Settings come from the Stage II config file, overridden by key=value. Re-running skips descriptions already in
        the file.""")
    p.add_argument("--config", help="Stage II YAML config (e.g. configs/cpu/smollm2-stage2.yaml)")
    p.add_argument("overrides", nargs="*", metavar="KEY=VALUE", help="config overrides, e.g. num_descriptions=10")


def run(args: argparse.Namespace) -> int:
    from spg.config import Invalid, check_device_present, load_config
    from spg.model.config import SPGConfig, resolve_artefact
    from spg.train.config import Stage2Config
    from spg.train.pairs import check_pairs_file

    # The pairs file first: naming a user's file (a records file, say) is the mistake that would damage data.
    check_pairs_file(load_config(Stage2Config, args.config, args.overrides).pairs)
    config = load_config(Stage2Config, args.config, args.overrides, available=True)
    if not config.data:
        raise InputError("data is not set: `data` holds the records whose descriptions spg pairs samples from")
    try:
        SPGConfig.load(resolve_artefact(config.model))  # a folder, or a shipped model's name
    except (OSError, ValueError, TypeError) as e:
        raise InputError(f"model={config.model}: {e}; expected a Stage I artefact (spg train stage1 output)") from None
    try:
        check_device_present("device", config.device)  # without torch: a CUDA device this machine surely lacks
    except Invalid as e:
        raise InputError(f"device={config.device}: device {e.why}") from None
    from spg.data import load_records
    from spg.model.backbone import resolve_device
    from spg.train.pairs import done_ids
    from spg.train.stage2 import make_pairs

    load_records(config.data)  # a DataError now for a path that is not there
    try:
        resolve_device(config.device)  # torch, but no model yet: a device this machine lacks is one line now
    except ValueError as e:
        raise InputError(f"device={config.device}: {e}") from None
    logging.basicConfig(format="%(message)s")
    logging.getLogger("spg").setLevel(logging.INFO)
    counts = make_pairs(config)
    total = sum(n for kind, n in counts.items() if kind != "no-pair")
    described = ", ".join(f"{kind} {counts[kind]}" for kind in ("gt-vs-worst", "best-vs-worst", "gt-vs-best"))
    print(f"{config.pairs}: {total} pairs from {len(done_ids(config.pairs))} descriptions ({described}); "
          f"{counts['no-pair']} descriptions without a pair")
    return 0

"""The markdown report of ``spg reproduce``: every figure read from what the pipeline's jobs wrote.

Sections: the command and where each job ran; the systems and how their training ended; per decoding setting,
the paper's Table 1 columns plus DEA of the generated forests, valid rate and how often generation stopped on
its own; teacher-forced DEA by depth (the paper's Table 2) with the always-root reference; pointer /
back-reference agreement; the acceptance checks of the configured SPG and Baseline rows, met or not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from spg.linearize import EOT
from spg.results import Evaluation, SystemScores, dea_cells, fmt, markdown

TEXT_COLUMNS = ("BLEU", "R-1", "BS", "SP", "AC", "CC", "PS")


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def training_summary(final: Path) -> dict[str, Any]:
    """Steps, minutes and the last logged losses of a training run (its ``log_history.json``)."""
    history = _read_json(final / "log_history.json") or []
    logged = [h for h in history if "loss" in h]
    last = logged[-1] if logged else {}
    end = next((h for h in reversed(history) if "train_runtime" in h), {})
    return {"steps": end.get("step") or last.get("step"), "minutes": end.get("train_runtime", 0) / 60 or None,
            **{k: last.get(k) for k in ("loss", "loss_lm", "loss_struct", "pointer_acc", "rewards/accuracies")}}


def stop_statistics(path: Path, max_new_tokens: int) -> dict[str, float] | None:
    """Share of outputs that ended on their own (``<eot>``, or a plain output shorter than the budget) and the
    mean number of new tokens."""
    if not path.is_file():
        return None
    results = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not results:
        return None
    stopped = [
        r["raw"].rstrip().endswith(EOT) if r["mode"] == "spg" else r["new_tokens"] < max_new_tokens for r in results
    ]
    return {"stopped": sum(stopped) / len(results), "new_tokens": sum(r["new_tokens"] for r in results) / len(results)}


def always_root(dea: dict) -> float | None:
    """DEA of pointing every dependent claim at its tree's root: the share of depth-2 claims."""
    hits, total = dea["counts"]["all"]
    return dea["counts"]["d2"][1] / total if total else None


def reproduction_report(pipeline) -> str:
    """The whole report of a :class:`spg.reproduce.Pipeline` whose jobs have run."""
    config, out = pipeline.config, pipeline.out
    lines = [f"# {config.title}", ""]
    lines += [
        "Written by `spg reproduce` from the files its jobs left in "
        f"`{out}`; the configuration is `{out / 'config.yaml'}` (copied below). Re-running the command rebuilds "
        "this page and redoes no finished job.", "",
    ]
    lines += _provenance(pipeline)
    lines += _systems(pipeline)
    tables = {}
    for decoding in config.decoding:
        values = _read_json(pipeline.evaluation_file(decoding))
        if values:
            evaluation = Evaluation.from_json(values)
            tables[decoding] = {row.system: row for row in evaluation.rows}
            lines += _text_table(pipeline, decoding, evaluation)
    lines += _dea_table(pipeline)
    lines += _checks(pipeline, tables)
    lines += ["## Configuration", "", "```yaml", (out / "config.yaml").read_text(encoding="utf-8").rstrip(), "```", ""]
    return "\n".join(lines)


def _provenance(pipeline) -> list[str]:
    records = [_read_json(p) for p in sorted((pipeline.out / "done").glob("*.json"))]
    devices: dict[str, list[str]] = {}
    for record in records:
        if record:
            devices.setdefault(f"{record['device']} ({record['host']})", []).append(record["job"])
    lines = ["## Where the jobs ran", ""]
    for device, jobs in devices.items():
        kinds = sorted({j.split("/")[0] for j in jobs})
        lines.append(f"- {device}: {len(jobs)} jobs ({', '.join(kinds)})")
    records = [r for r in records if r and r.get("command")]
    if records:
        lines += ["", "<details><summary>Every command, with its time</summary>", ""]
        lines += [f"- `{r['job']}` ({r['seconds']:.0f} s): `{' '.join(r['command'])}`" for r in records]
        lines += ["", "</details>"]
    return lines + [""]


def _systems(pipeline) -> list[str]:
    rows = []
    for system in pipeline.systems:
        what = system.model + " prompted zero-shot" if system.kind == "zero-shot" else (
            f"{system.kind}" + (f" on {system.parent}" if system.parent else "")
            + (": " + " ".join(system.overrides) if system.overrides else ""))
        summary = training_summary(pipeline.model_dir(system)) if system.kind != "zero-shot" else {}
        rows.append([
            system.name, what, str(summary.get("steps") or "–"), fmt(summary.get("minutes"), 1),
            fmt(summary.get("loss_lm") if system.kind == "stage1" else summary.get("loss"), 3),
            fmt(summary.get("loss_struct"), 3), fmt(summary.get("pointer_acc"), 3),
            fmt(summary.get("rewards/accuracies"), 3),
        ])
    head = ["System", "what", "steps", "minutes", "last L_LM (Stage II: loss)", "last L_struct",
            "pointer acc (train)", "reward acc (Stage II)"]
    return ["## Systems", "", *markdown(head, rows), "",
            "Last logged values of each run (`log_history.json` beside the model); pointer accuracy is teacher-forced "
            "on the training batches of the last logging interval.", ""]


def _text_table(pipeline, decoding: str, evaluation: Evaluation) -> list[str]:
    settings = (pipeline.config.decoding[decoding] or {}).get("overrides") or {}
    values = yaml.safe_load(pipeline.decoding_file(decoding).read_text(encoding="utf-8")) or {}
    budget = int(values.get("max_new_tokens", 1024))
    rows = []
    for row in evaluation.rows:
        system = pipeline.by_name(row.system)
        # an evaluation made before `only` narrowed the run still lists the systems it dropped: their row is
        # reported as evaluated, without stop figures from generations this run no longer names
        stops = (stop_statistics(pipeline.generations(decoding, system), budget) if system else None) or {}
        rows.append([row.system, *row.cells((*TEXT_COLUMNS, "DEA", "valid")), fmt(stops.get("stopped"), 2),
                     fmt(stops.get("new_tokens"), 0)])
    described = ", ".join(f"{k}={v}" for k, v in values.items() if k not in ("model",))
    n = evaluation.settings.references
    lines = [f"## Table 1 — dev split, decoding `{decoding}`", ""]
    lines += [f"{n} dev documents; generation settings: {described}"
              + (f" (this setting changes: {settings})" if settings else "") + ".", ""]
    lines += markdown(["System", *TEXT_COLUMNS, "DEA (gen.)", "valid", "stopped", "new tokens"], rows)
    if evaluation.not_generated:
        lines += ["", f"Not generated under this setting (the job failed or never ran; see `logs/`): "
                      f"{', '.join(evaluation.not_generated)}."]
    lines += ["", f"BERTScore model: {evaluation.settings.bertscore_model}. `stopped`: share of outputs that "
              "ended on their own (`<eot>`, or eos within the budget); `valid`: the paper's valid output; "
              "DEA (gen.): the parents of the generated forest (the pointer's for SPG systems) against the gold "
              "forest.", ""]
    agreement = [(r.system, r.agreement) for r in evaluation.rows if r.agreement["total"]]
    if agreement:
        lines += ["Pointer / back-reference agreement (generated dependent claims whose text cites the claim the "
                  "pointer chose; the paper reports 78.7%): "
                  + "; ".join(f"{name} {a['value']:.3f} ({a['agree']}/{a['total']})" for name, a in agreement), ""]
    return lines


def _dea_table(pipeline) -> list[str]:
    rows, reference = [], None
    for system in pipeline.systems:
        report = _read_json(pipeline.dea_dir(system) / "dea.json")
        if report is None:
            continue
        rows.append([system.name, *dea_cells(report["dea"])])
        reference = report
    if not rows:
        return []
    root = always_root(reference["dea"])
    counts = reference["dea"]["counts"]
    rows.append(["always the root (reference)", fmt(root, 3), "1.000", "0.000", "0.000", "0.000", "0.000"])
    return ["## Table 2 — teacher-forced DEA on the dev split", "",
            f"Gold forests fed as in training ({reference['documents']} documents, {counts['all'][1]} dependent "
            "claims the model saw; parents are the annotated links where a document has them, else the claim "
            "parser's, which reproduces every annotated link of the USPTO set). Cells: DEA (correct/total) by "
            "gold depth.", "", *markdown(["System", "Overall", "d2", "d3", "d4", "d5", "d6+"], rows), ""]


def _checks(pipeline, tables: dict[str, dict[str, SystemScores]]) -> list[str]:
    compare = pipeline.config.compare or {}
    spg_name, baseline_name = compare.get("spg"), compare.get("baseline")
    spg_system = pipeline.by_name(spg_name) if spg_name else None
    if spg_system is None or not tables:
        return []
    lines = ["## Acceptance checks", "", "| check | decoding | measured | target | met |", "|---|---|---:|---:|---|"]

    def check(name: str, decoding: str, value: float | None, target: float | None, ok: bool | None) -> None:
        verdict = "–" if ok is None else ("yes" if ok else "**no**")
        lines.append(f"| {name} | {decoding} | {fmt(value, 3)} | {fmt(target, 3)} | {verdict} |")

    for decoding, rows in tables.items():
        spg, baseline = rows.get(spg_name), rows.get(baseline_name)
        if spg is None:
            continue
        constrained = (pipeline.config.decoding[decoding] or {}).get("overrides", {}).get("constrained")
        target = 1.0 if constrained else 0.9
        check(f"{spg_name}: valid rate", decoding, spg.valid, target, spg.valid >= target)
        if baseline is not None:
            for column in ("BLEU", "R-1", "BS"):
                floor = baseline.column(column) - 1 if baseline.column(column) is not None else None
                ok = None if floor is None or spg.column(column) is None else spg.column(column) >= floor
                check(f"{spg_name} {column} ≥ {baseline_name} − 1", decoding, spg.column(column), floor, ok)
            check(f"{spg_name} AC > {baseline_name}", decoding, spg.ac, baseline.ac, spg.ac > baseline.ac)
    dea = _read_json(pipeline.dea_dir(spg_system) / "dea.json")
    if dea and dea["dea"]["overall"] is not None:
        overall, root = dea["dea"]["overall"], always_root(dea["dea"])
        check(f"{spg_name}: teacher-forced DEA ≥ always-root + 0.10", "teacher-forced", overall, root + 0.10,
              overall >= root + 0.10)
        d3 = dea["dea"].get("d3")
        check(f"{spg_name}: teacher-forced DEA at depth 3 ≥ 0.5", "teacher-forced", d3, 0.5,
              None if d3 is None else d3 >= 0.5)
    return lines + [""]

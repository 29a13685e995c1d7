"""One command for the mini reproduction: train every system, generate for the dev split, evaluate, report.

    spg reproduce --config configs/repro/smollm2.yaml

A system is a Stage I run (the ``stage1`` config plus the system's overrides), a Stage II run on top of a Stage I
system (``stage2`` config plus overrides; its preference pairs are sampled once per Stage I parent), or a chat model
prompted zero-shot. Each becomes jobs: train, pairs, one generation per decoding setting, and teacher-forced DEA
for tagged systems. They run as ``python -m spg.cli`` subprocesses, ``parallel`` at a time (a small model leaves
a GPU room for several), each logging to ``output_dir/logs/``. Then evaluation and the markdown report run in this
process.

Resumable: a finished job leaves ``output_dir/done/<job>.json`` (its command, seconds, host and device) and is not
run again, and neither is a job whose every dependent has finished. So generations made on a GPU machine can be
copied next to their ``done`` records and evaluated on a laptop without the trained models. The commands
themselves resume too (``spg generate`` skips finished documents, ``spg pairs`` finished descriptions).
"""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from spg.config import ConfigError, load_config, read_yaml
from spg.files import check_destination, check_folder, open_log, write_json, write_text

KINDS = ("stage1", "stage2", "zero-shot")
REPRODUCE = "reproduce"  # the kind of spg.files output every file spg reproduce writes is


@dataclass
class ReproduceConfig:
    """What ``spg reproduce`` runs; see configs/repro/smollm2.yaml for a commented example."""

    output_dir: str = "runs/repro"
    data: list[str] | str = ""  # sources for every stage: training uses the train split, evaluation dev
    dev_limit: int | None = None  # only the first N dev documents are generated for and scored
    stage1: str = ""  # Stage I config file (systems add overrides)
    stage2: str = ""  # Stage II config file
    generate: str = ""  # generation config file; `decoding` entries override it
    # name -> {overrides: {GenerateConfig key: value}, systems: [names] or null for all}
    decoding: dict = field(default_factory=lambda: {"paper": {}})
    systems: list[dict] = field(default_factory=list)  # {name, kind, overrides, parent, model}
    only: list[str] | None = None  # run these systems (and the Stage I systems they start from)
    parallel: int = 1
    bertscore_model: str | None = None  # None: the offline default (spg.metrics.text)
    compare: dict = field(default_factory=dict)  # {spg: name, baseline: name}: the acceptance checks' rows
    report: str = "report.md"  # relative to output_dir unless absolute
    title: str = "SPG mini reproduction"


@dataclass(frozen=True)
class System:
    name: str
    kind: str
    overrides: tuple[str, ...] = ()
    parent: str | None = None  # stage2: the Stage I system it starts from
    model: str = "smollm2"  # zero-shot: the chat model

    @property
    def key(self) -> str:
        """The system's folder and job name: its name in lower-case words joined by hyphens."""
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")


@dataclass
class Job:
    name: str  # "train/stage-i", "generate/paper/baseline", ...
    deps: list[str]
    command: list[str] | None = None  # spg.cli arguments, run as a subprocess
    action: Callable[[], None] | None = None  # or run in this process
    partial: bool = False  # runs once every dependency finished or failed (evaluation, the report)


def systems_of(config: ReproduceConfig) -> list[System]:
    """The configured systems, checked (kinds, parents, unique names), limited to ``only`` and their parents."""
    systems, seen = [], set()
    for i, raw in enumerate(config.systems):
        if not isinstance(raw, dict) or "name" not in raw or raw.get("kind") not in KINDS:
            raise ConfigError(f"systems[{i}]: expected a mapping with 'name' and 'kind' (one of {', '.join(KINDS)})")
        unknown = set(raw) - {"name", "kind", "overrides", "parent", "model"}
        if unknown:
            raise ConfigError(f"systems[{i}] ({raw['name']}): unknown keys {sorted(unknown)}")
        system = System(str(raw["name"]), raw["kind"], tuple(raw.get("overrides") or ()), raw.get("parent"),
                        str(raw.get("model", "smollm2")))
        if system.key in seen:
            raise ConfigError(f"systems[{i}]: a second system named like {system.name!r}")
        if system.kind == "stage2" and system.parent not in {s.name for s in systems if s.kind == "stage1"}:
            raise ConfigError(f"systems[{i}] ({system.name}): parent must name an earlier stage1 system")
        seen.add(system.key)
        systems.append(system)
    if config.only is not None:
        unknown = set(config.only) - {s.name for s in systems}
        if unknown:
            raise ConfigError(f"only: no systems named {sorted(unknown)}")
        keep = set(config.only) | {s.parent for s in systems if s.name in config.only and s.parent}
        systems = [s for s in systems if s.name in keep]
    return systems


def writes_tags(system: System, config: ReproduceConfig) -> bool:
    """Whether a system writes the tagged forest (and so has a pointer to score)."""
    if system.kind == "zero-shot":
        return False
    if system.kind == "stage2":
        return True  # LPO needs a tagged Stage I model
    from spg.train.config import Stage1Config

    return load_config(Stage1Config, config.stage1, list(system.overrides)).tagged


class Pipeline:
    """The jobs of one reproduction config, and where each writes."""

    def __init__(self, config: ReproduceConfig):
        self.config = config
        self.out = Path(config.output_dir)
        self.systems = systems_of(config)
        self.data = json.dumps([str(p) for p in ([config.data] if isinstance(config.data, str) else config.data)])
        self.sources = json.loads(self.data)

    # ---- where things go ---------------------------------------------------------------------
    def model_dir(self, system: System) -> Path:
        return self.out / system.key / "final"

    def pairs_file(self, parent: System) -> Path:
        return self.out / parent.key / "pairs.jsonl"

    def generations(self, decoding: str, system: System) -> Path:
        return self.out / "generations" / decoding / f"{system.key}.jsonl"

    def dea_dir(self, system: System) -> Path:
        return self.out / "dea" / system.key

    def evaluation_file(self, decoding: str) -> Path:
        return self.out / f"evaluation-{decoding}.json"

    def report_file(self) -> Path:
        report = Path(self.config.report)
        return report if report.is_absolute() else self.out / report

    def decoding_file(self, decoding: str) -> Path:
        return self.out / "decoding" / f"{decoding}.yaml"

    def decoded_systems(self, decoding: str) -> list[System]:
        names = (self.config.decoding[decoding] or {}).get("systems")
        return [s for s in self.systems if names is None or s.name in names]

    def by_name(self, name: str) -> System | None:
        return next((s for s in self.systems if s.name == name), None)

    # ---- the jobs ------------------------------------------------------------------------------
    def jobs(self) -> list[Job]:
        c, jobs = self.config, []
        # Stage I systems that Stage II systems start from go first: theirs is the longest chain of jobs.
        parents = {s.parent for s in self.systems}
        systems = sorted(self.systems, key=lambda s: s.name not in parents)
        dev = ["--split", "dev", *(["--limit", str(c.dev_limit)] if c.dev_limit else [])]
        for system in systems:
            if system.kind == "stage1":
                jobs.append(Job(f"train/{system.key}", [], [
                    "train", "stage1", "--config", c.stage1, f"train_file={self.data}", "train_split=train",
                    f"output_dir={self.out / system.key}", *system.overrides]))
            elif system.kind == "stage2":
                parent = self.by_name(system.parent)
                assert parent is not None  # systems_of keeps the parent of every kept Stage II system
                pairs = f"pairs/{parent.key}"
                if pairs not in {j.name for j in jobs}:
                    jobs.append(Job(pairs, [f"train/{parent.key}"], [
                        "pairs", "--config", c.stage2, f"model={self.model_dir(parent)}", f"data={self.data}",
                        "data_split=train", f"pairs={self.pairs_file(parent)}"]))
                jobs.append(Job(f"train/{system.key}", [pairs], [
                    "train", "stage2", "--config", c.stage2, f"model={self.model_dir(parent)}",
                    f"pairs={self.pairs_file(parent)}", f"output_dir={self.out / system.key}", *system.overrides]))
            if system.kind != "zero-shot" and writes_tags(system, c):
                jobs.append(Job(f"dea/{system.key}", [f"train/{system.key}"], [
                    "dea", "--model", str(self.model_dir(system)), *self.sources, *dev, "--out",
                    str(self.dea_dir(system)), "--no-progress", "--json"]))
        for decoding in c.decoding:
            if not self.decoded_systems(decoding):  # `only` left none of this setting's systems
                continue
            generated = []
            for system in self.decoded_systems(decoding):
                if system.kind == "zero-shot":
                    model, deps = ["--model", system.model, "--zero-shot"], []
                else:
                    model, deps = ["--model", str(self.model_dir(system))], [f"train/{system.key}"]
                name = f"generate/{decoding}/{system.key}"
                generated.append(name)
                jobs.append(Job(name, deps, [
                    "generate", "--config", str(self.decoding_file(decoding)), *model,
                    *[arg for source in self.sources for arg in ("--input", source)], *dev,
                    "--output", str(self.generations(decoding, system)), "--no-progress"]))
            jobs.append(Job(f"evaluate/{decoding}", generated, action=lambda d=decoding: self.evaluate(d), partial=True))
        jobs.append(Job("report", [j.name for j in jobs if j.name.startswith(("evaluate/", "dea/"))],
                        action=self.write_report, partial=True))
        return jobs

    def decoding_settings(self, decoding: str) -> dict[str, Any]:
        """The generation config of one decoding setting: the base config with that setting's overrides."""
        base = read_yaml(self.config.generate) if self.config.generate else {}
        return {**base, **((self.config.decoding[decoding] or {}).get("overrides") or {})}

    def check(self, available: bool = True) -> None:
        """Every job's config, checked as its command will check it (spg.config), before any job runs: a bad
        Stage II or decoding key fails now, not after Stage I has trained. ``available``: Stage I's base model and
        data must be on this machine; what a later job reads (a Stage I model a job before it trains) is left to
        that job."""
        from spg.generation.config import GenerateConfig
        from spg.train.config import Stage1Config, Stage2Config

        kinds = {"stage1": (Stage1Config, self.config.stage1), "stage2": (Stage2Config, self.config.stage2)}
        todo = {j.name for j in needed_jobs(self.jobs(), self.out)}
        for job in self.jobs():
            if job.command and job.command[0] in ("train", "pairs"):
                cls, path = kinds["stage2" if job.command[0] == "pairs" else job.command[1]]
                overrides = [a for a in job.command if "=" in a and not a.startswith("-")]
                config = load_config(cls, path, overrides, available=available and cls is Stage1Config)
                if job.command[0] == "train" and job.name in todo:
                    check_folder(config.output_dir, config.RUN)  # as spg train will
        for decoding in self.config.decoding:
            load_config(GenerateConfig, values=(f"decoding {decoding}", self.decoding_settings(decoding)))

        # A zero-shot system's model is there already: its generation jobs' settings are checked against it as
        # spg generate will (a prompt budget its chat template leaves no room in, say); trained ones do not exist yet.
        for decoding in self.config.decoding if available else ():
            for system in self.decoded_systems(decoding):
                if system.kind == "zero-shot":
                    flags = [("--model", "model", system.model), ("--zero-shot", "zero_shot", True)]
                    load_config(GenerateConfig, values=(f"decoding {decoding}", self.decoding_settings(decoding)),
                                flags=flags, available=True)

    def write_decoding_files(self) -> None:
        """Each decoding setting as a generation config file, which its generation jobs read."""
        for decoding in self.config.decoding:
            path = self.decoding_file(decoding)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text(path, REPRODUCE, yaml.safe_dump(self.decoding_settings(decoding), sort_keys=False))
            (self.out / "generations" / decoding).mkdir(parents=True, exist_ok=True)

    # ---- the in-process jobs -----------------------------------------------------------------
    def dev_records(self):
        from itertools import islice

        from spg.data import load_records

        return list(islice(load_records(self.sources, split="dev"), self.config.dev_limit))

    def evaluate(self, decoding: str) -> None:
        """Score every system whose generation job finished; the others are listed as not generated."""
        from spg.evaluate import evaluate, read_prediction_file

        systems = self.decoded_systems(decoding)
        finished = [s for s in systems if is_done(self.out, f"generate/{decoding}/{s.key}")]
        if not finished:
            raise RuntimeError(f"no system was generated under decoding {decoding!r}")
        predictions = [read_prediction_file(self.generations(decoding, s), name=s.name) for s in finished]
        report = evaluate(predictions, self.dev_records(), bertscore_model=self.config.bertscore_model,
                          progress=False)
        report.not_generated = [s.name for s in systems if s not in finished]
        write_json(self.evaluation_file(decoding), REPRODUCE, report.to_json(), indent=1)

    def write_report(self) -> None:
        from spg.report import reproduction_report

        write_text(self.report_file(), REPRODUCE, reproduction_report(self))

    def check_destinations(self, jobs: Sequence[Job]) -> None:
        """Raise InputError now, before any job runs, when the config copy, the report or the log of a job to run
        could not be written."""
        logs = [log_file(self.out, j) for j in needed_jobs(jobs, self.out) if j.command]  # a done job's is not opened
        for path in (self.out / "config.yaml", self.report_file(), *logs):
            check_destination(path, REPRODUCE)


# ---- running jobs ------------------------------------------------------------------------------


def _done_path(out: Path, job: str) -> Path:
    return out / "done" / f"{job.replace('/', '__')}.json"


def log_file(out: Path, job: Job) -> Path:
    """Where a subprocess job's output goes (spg's own log: it starts with a marker line, spg.files.open_log)."""
    return out / "logs" / f"{job.name.replace('/', '__')}.log"


def is_done(out: Path, job: str) -> bool:
    return _done_path(out, job).is_file()


def needed_jobs(jobs: Sequence[Job], out: Path) -> list[Job]:
    """Jobs to run: not done, and either a final job or a dependency of a job still to run (in job order)."""
    dependents: dict[str, list[str]] = {j.name: [] for j in jobs}
    for job in jobs:
        for dep in job.deps:
            dependents[dep].append(job.name)
    needed: set[str] = set()
    for job in reversed(jobs):  # dependents come after their dependencies
        finished = is_done(out, job.name)
        if not finished and (not dependents[job.name] or any(d in needed for d in dependents[job.name])):
            needed.add(job.name)
    return [j for j in jobs if j.name in needed]


def _device_name() -> str:
    try:
        import torch

        return torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
    except ImportError:
        return "unknown"


def _record(out: Path, job: Job, seconds: float) -> None:
    record = {"job": job.name, "command": ["spg", *job.command] if job.command else None,
              "seconds": round(seconds, 1), "host": platform.node(), "device": _device_name(),
              "finished": time.strftime("%Y-%m-%d %H:%M:%S")}
    write_json(_done_path(out, job.name), REPRODUCE, record, indent=1)


def _say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def run_jobs(jobs: Sequence[Job], out: Path, parallel: int = 1) -> list[str]:
    """Run the needed jobs, up to ``parallel`` subprocesses at once; returns the names of jobs that failed
    (their dependents are not run)."""
    todo = needed_jobs(jobs, out)
    failed: list[str] = []
    running: dict[str, tuple[subprocess.Popen, Job, float]] = {}
    if not todo:
        _say("every job has finished")
    while todo or running:
        blocked = {j.name for j in todo if not j.partial and any(d in failed for d in j.deps)}
        for name in blocked:
            failed.append(name)
            _say(f"skip {name}: a job it needs failed")
        todo = [j for j in todo if j.name not in blocked]
        settled = [j for j in todo if all(is_done(out, d) or (j.partial and d in failed) for d in j.deps)]
        for job in settled:
            if job.action is not None:
                if running:  # in-process jobs read what the subprocesses write: wait for a quiet moment
                    continue
                _say(f"run {job.name}")
                start = time.time()
                todo.remove(job)
                try:
                    job.action()
                except Exception as err:  # noqa: BLE001 - one failed step must not lose the others' results
                    failed.append(job.name)
                    _say(f"FAILED {job.name}: {type(err).__name__}: {err}")
                    continue
                _record(out, job, time.time() - start)
                _say(f"done {job.name} in {time.time() - start:.0f} s")
            elif len(running) < parallel:
                log = log_file(out, job)
                _say(f"start {job.name} (log: {log})")
                with open_log(log, REPRODUCE) as sink:
                    process = subprocess.Popen([sys.executable, "-m", "spg.cli", *job.command], stdout=sink,
                                               stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
                running[job.name] = (process, job, time.time())
                todo.remove(job)
        for name, (process, job, start) in list(running.items()):
            if process.poll() is None:
                continue
            del running[name]
            if process.returncode == 0:
                _record(out, job, time.time() - start)
                _say(f"done {name} in {time.time() - start:.0f} s")
            else:
                failed.append(name)
                _say(f"FAILED {name} (exit {process.returncode}); see {log_file(out, job)}")
        if running:
            time.sleep(2)
    return failed


def load(path: str | Path, overrides: Sequence[str] = ()) -> ReproduceConfig:
    config = load_config(ReproduceConfig, path, overrides)
    if not config.data:
        raise ConfigError(f"{path}: 'data' is not set (one source or a list)")
    if config.parallel < 1:
        raise ConfigError(f"{path}: parallel must be at least 1, got {config.parallel}")
    for key in ("stage1", "stage2", "generate"):
        value = getattr(config, key)
        if value and not Path(value).is_file():
            raise ConfigError(f"{path}: {key} = {value!r} is not a file")
    _check_shapes(config, path)
    return config


def _kind(value: object) -> str:
    return f"the string {value!r}" if isinstance(value, str) else f"a {type(value).__name__}"


def _check_shapes(config: ReproduceConfig, path: str | Path) -> None:
    """The nested entries load_config does not type: each decoding setting a mapping of ``overrides`` (a mapping)
    and ``systems`` (a list of names), each system's ``overrides`` a list of key=value strings. A string is never
    read as a list of its characters."""
    names = [raw.get("name") for raw in config.systems if isinstance(raw, dict)]
    for name, entry in config.decoding.items():
        where = f"{path}: decoding: {name}"
        if entry is None:
            continue
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: expected a mapping with 'overrides' (generation settings) and/or 'systems' "
                              f"(names), or nothing; got {_kind(entry)}")
        unknown = set(entry) - {"overrides", "systems"}
        if unknown:
            raise ConfigError(f"{where}: unknown keys {sorted(map(str, unknown))}; expected 'overrides' and/or "
                              "'systems'")
        if entry.get("overrides") is not None and not isinstance(entry["overrides"], dict):
            raise ConfigError(f"{where}: overrides: expected a mapping of generation settings ({{key: value}}), got "
                              f"{_kind(entry['overrides'])}")
        systems = entry.get("systems")
        if systems is not None and (not isinstance(systems, list) or not all(isinstance(n, str) for n in systems)):
            raise ConfigError(f"{where}: systems: expected a list of system names, got {_kind(systems)}"
                              + (f"; write [{systems}]" if isinstance(systems, str) else ""))
        missing = [n for n in systems or () if n not in names]
        if missing:
            raise ConfigError(f"{where}: systems: no systems named {missing}; expected names from 'systems'")
    for i, raw in enumerate(config.systems):
        overrides = raw.get("overrides") if isinstance(raw, dict) else None
        if overrides is None:
            continue
        where = f"{path}: systems[{i}] ({raw.get('name')}): overrides"
        if isinstance(overrides, str):
            raise ConfigError(f"{where}: expected a list of key=value strings, got {_kind(overrides)}; write "
                              f"[{overrides}]")
        if not isinstance(overrides, list) or not all(isinstance(o, str) and "=" in o for o in overrides):
            raise ConfigError(f"{where}: expected a list of key=value strings, got {_kind(overrides)}")


def jobs_before(jobs: Sequence[Job], step: str) -> list[Job]:
    """The jobs left when a run stops before ``step`` (a job-name prefix): those of that step, every job that
    needs one of them, and the report are dropped; dependencies left out are done or not needed anyway."""
    dropped = {j.name for j in jobs if j.name.startswith(step) or j.name == "report"}
    for job in jobs:  # jobs come in dependency order
        if any(d in dropped for d in job.deps):
            dropped.add(job.name)
    return [j for j in jobs if j.name not in dropped]


def main(path: str, overrides: Sequence[str] = (), *, stop_before: str | None = None, dry_run: bool = False) -> int:
    config = load(path, overrides)
    pipeline = Pipeline(config)
    pipeline.check()
    jobs = pipeline.jobs()
    if stop_before:
        jobs = jobs_before(jobs, stop_before)
    pipeline.check_destinations(jobs)
    if dry_run:
        todo = {j.name for j in needed_jobs(jobs, pipeline.out)}
        for job in jobs:
            state = "to run" if job.name in todo else "done" if is_done(pipeline.out, job.name) else "not needed"
            what = "spg " + " ".join(job.command) if job.command else "(in process)"
            print(f"{job.name:<34} {state:<10} {what}")
        return 0
    write_text(pipeline.out / "config.yaml", REPRODUCE, yaml.safe_dump(_as_dict(config), sort_keys=False))
    pipeline.write_decoding_files()
    failed = run_jobs(jobs, pipeline.out, config.parallel)
    if failed:
        print(f"spg reproduce: {len(failed)} jobs did not finish: {', '.join(failed)}", file=sys.stderr)
        return 1
    if not stop_before:
        print(f"report: {pipeline.report_file()}")
    return 0


def _as_dict(config: ReproduceConfig) -> dict[str, Any]:
    from dataclasses import asdict

    return asdict(config)

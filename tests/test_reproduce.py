"""spg reproduce end to end on tiny random models: jobs, parallel subprocesses, resume, report."""

import json
import shutil
from pathlib import Path

import pytest
import yaml
from tiny import tiny_llama, tiny_tokenizer

from spg.cli import main
from spg.data import document_split
from spg.reproduce import Job, Pipeline, load, needed_jobs

CLAIMS = [
    {"num": 1, "text": "1. A chair comprising a seat.", "parents": []},
    {"num": 2, "text": "2. The chair of claim 1, wherein the seat is red.", "parents": [1]},
    {"num": 3, "text": "3. The chair of claim 2, wherein the seat is round.", "parents": [2]},
]


@pytest.fixture
def recipe(tmp_path):
    return write_recipe(tmp_path)


def write_recipe(tmp_path: Path) -> Path:
    """The whole pipeline's recipe on tiny random models and six documents, in ``tmp_path``."""
    base = tmp_path / "base"
    tiny_llama().save_pretrained(base)
    tiny_tokenizer().save_pretrained(base)
    ids = [f"doc{i}" for i in range(200)]
    chosen = [i for i in ids if document_split(i) == "dev"][:2] + [i for i in ids if document_split(i) == "train"][:4]
    data = tmp_path / "docs.jsonl"
    data.write_text("".join(json.dumps({"id": i, "description": f"A chair {i}.", "claims": CLAIMS}) + "\n"
                            for i in chosen))
    # The tiny tokenizer is byte-level: the instruction alone is ~200 tokens, the zero-shot one ~1,300.
    tiny = dict(base_model=str(base), max_length=500, max_target_tokens=200, lora_r=2, lora_alpha=4,
                per_device_train_batch_size=2, gradient_accumulation_steps=1, max_steps=1, bf16=False,
                logging_steps=1, save_steps=100)
    files = {
        "stage1": {**tiny, "aux_state_norm": "rms", "aux_reduction": "token", "pointer_lr": 1e-6},
        "stage2": {**{k: v for k, v in tiny.items() if k not in ("base_model", "max_target_tokens")},
                   "num_descriptions": 2, "max_new_tokens": 12, "max_prompt_tokens": 300, "sample_batch_size": 2},
        "generate": {"max_new_tokens": 16, "max_prompt_tokens": 1500, "batch_size": 2, "temperature": 1.0},
    }
    for name, values in files.items():
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump(values))
    recipe = {
        "output_dir": str(tmp_path / "out"), "data": [str(data)], "parallel": 2,
        **{name: str(tmp_path / f"{name}.yaml") for name in files},
        "decoding": {"paper": {}, "constrained": {"overrides": {"constrained": True}, "systems": ["SPG"]}},
        "compare": {"spg": "SPG", "baseline": "Baseline"},
        "systems": [
            {"name": "Zero-shot", "kind": "zero-shot", "model": str(base)},
            {"name": "Baseline", "kind": "stage1", "overrides": ["tagged=false", "gamma=0", "eta=0"]},
            {"name": "Stage I", "kind": "stage1"},
            {"name": "SPG", "kind": "stage2", "parent": "Stage I", "overrides": ["mode=lpo"]},
        ],
    }
    path = tmp_path / "repro.yaml"
    path.write_text(yaml.safe_dump(recipe))
    return path


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """The recipe of a whole run, once for the module (the run takes most of a minute): a test that changes the
    run works on its own copy (:func:`copy_of`)."""
    recipe = write_recipe(tmp_path_factory.mktemp("finished"))
    # its jobs inherit OMP_NUM_THREADS=1 (tests/conftest.py): the fixture starts before the slow test's cores are set
    assert main(["reproduce", "--config", str(recipe)]) == 0
    return recipe


def copy_of(recipe: Path, folder: Path) -> Path:
    """The run of ``recipe`` copied under ``folder`` (its output folder only: the inputs are read, never written),
    and the recipe that names the copy; the run's records say it can move (spg.reproduce)."""
    config = yaml.safe_load(recipe.read_text())
    shutil.copytree(config["output_dir"], folder / "out")
    config["output_dir"] = str(folder / "out")
    path = folder / "repro.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.slow
def test_reproduce_runs_every_job_writes_the_report_and_redoes_nothing(finished, capsys):
    out = finished.parent / "out"
    report = (out / "report.md").read_text()
    for name in ("Zero-shot", "Baseline", "Stage I", "SPG", "always the root (reference)", "Acceptance checks"):
        assert name in report
    assert "decoding `constrained`" in report
    constrained = [json.loads(line) for line in (out / "generations" / "constrained" / "spg.jsonl").open()]
    # Each output is a valid forest, or empty where the budget ended the tiny random model's only claim (left out:
    # spg.generation.whole_claims).
    assert len(constrained) == 2 and all(r["valid"] or (not r["forest"] and r["cut_by_budget"]) for r in constrained)
    capsys.readouterr()

    assert main(["reproduce", "--config", str(finished)]) == 0
    assert "every job has finished" in capsys.readouterr().out


@pytest.mark.slow
def test_a_model_whose_results_exist_is_not_retrained(finished, tmp_path, capsys):
    recipe = copy_of(finished, tmp_path)
    out = tmp_path / "out"
    for system in ("baseline", "stage-i", "spg"):  # the trained models are gone (e.g. they stayed on a GPU machine)
        for path in (out / system).rglob("*"):
            if path.is_file():
                path.unlink()
    (out / "done" / "report.json").unlink()
    capsys.readouterr()
    assert main(["reproduce", "--config", str(recipe)]) == 0
    printed = capsys.readouterr().out
    assert "run report" in printed and "start" not in printed


@pytest.mark.slow
def test_a_run_narrowed_by_only_reports_over_an_evaluation_of_every_system(finished, tmp_path, capsys):
    # the evaluation files of the whole run still list the systems `only` drops; the report names them as
    # evaluated rather than looking up generations this run no longer has
    recipe = copy_of(finished, tmp_path)
    (tmp_path / "out" / "done" / "report.json").unlink()
    capsys.readouterr()
    assert main(["reproduce", "--config", str(recipe), "only=[Baseline]"]) == 0
    report = (tmp_path / "out" / "report.md").read_text()
    assert "Baseline" in report and "SPG" in report


def test_needed_jobs_skip_finished_ones_and_dependencies_of_finished_ones(tmp_path):
    jobs = [Job("train/a", []), Job("generate/a", ["train/a"]), Job("train/b", []), Job("generate/b", ["train/b"]),
            Job("report", ["generate/a", "generate/b"])]
    (tmp_path / "done").mkdir()
    (tmp_path / "done" / "generate__a.json").write_text("{}")
    assert [j.name for j in needed_jobs(jobs, tmp_path)] == ["train/b", "generate/b", "report"]


@pytest.mark.slow
def test_a_failed_generation_leaves_its_row_out_and_the_rest_is_still_reported(finished, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # tiny models, two jobs at a time: one thread each (tests/conftest.py)
    # The whole run's copy with its zero-shot generation not yet run: that job (the one that fails) is the only
    # job started; the Baseline's training and generation, done, are what the rest of the report is built from.
    recipe = copy_of(finished, tmp_path)
    out = tmp_path / "out"
    for done in ("generate__paper__zero-shot", "evaluate__paper", "report"):
        (out / "done" / f"{done}.json").unlink()
    (out / "generations" / "paper" / "zero-shot.jsonl").unlink()
    config = yaml.safe_load(recipe.read_text())
    broken = tmp_path / "broken-model"  # a folder that passes the checks before any job but does not load
    broken.mkdir()
    (broken / "config.json").write_text("{}")
    config["systems"][0]["model"] = str(broken)  # so the zero-shot job fails when it runs
    config["only"] = ["Zero-shot", "Baseline"]
    recipe.write_text(yaml.safe_dump(config))
    capsys.readouterr()
    assert main(["reproduce", "--config", str(recipe)]) == 1
    assert "FAILED generate/paper/zero-shot" in capsys.readouterr().out
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| Baseline |" in report and "Not generated under this setting" in report and "Zero-shot" in report


def test_stage2_systems_need_a_stage1_parent_and_names_must_differ(recipe):
    config = load(recipe)
    config.systems[3]["parent"] = "Baseline2"
    with pytest.raises(ValueError, match="parent must name an earlier stage1 system"):
        Pipeline(config)
    config = load(recipe)
    config.systems.append({"name": "stage i", "kind": "stage1"})
    with pytest.raises(ValueError, match="a second system named like"):
        Pipeline(config)


def test_only_keeps_the_named_systems_and_the_stage1_systems_they_start_from(recipe):
    pipeline = Pipeline(load(recipe, ["only=[SPG]"]))
    assert [s.name for s in pipeline.systems] == ["Stage I", "SPG"]
    assert [j.name for j in pipeline.jobs()][:3] == ["train/stage-i", "dea/stage-i", "pairs/stage-i"]


def test_dry_run_lists_every_job_with_its_command(recipe, capsys):
    assert main(["reproduce", "--config", str(recipe), "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert "train/stage-i" in printed and "spg train stage1 --config" in printed and "to run" in printed


def test_a_bad_recipe_is_one_line_and_exit_2(recipe, capsys):
    assert main(["reproduce", "--config", str(recipe), "parallel=0"]) == 2
    assert "parallel must be at least 1" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda r: r["decoding"]["paper"].update(overrides={"temperature": -1}),
         "decoding paper: temperature must be above 0 when sampling"),
        (lambda r: r["systems"][3].update(overrides=["mode=lpo", "betta=0.2"]),
         "override 'betta=0.2': unknown key 'betta' for Stage2Config"),
        (lambda r: r["systems"][1].update(overrides=["lr_scheduler_type=bogus"]),
         "override 'lr_scheduler_type=bogus': lr_scheduler_type must be one of"),
    ],
)
def test_dry_run_refuses_a_job_config_that_its_job_would_refuse(recipe, change, named, capsys):
    values = yaml.safe_load(recipe.read_text())
    change(values)
    recipe.write_text(yaml.safe_dump(values))
    assert main(["reproduce", "--config", str(recipe), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert named in err and len(err.splitlines()) == 1, err


@pytest.mark.parametrize(("mine", "named"), [
    ("logs/train__stage-i.log", "not spg reproduce output"),  # a job's log: appended to by the job
    ("stage-i/notes.txt", "is a folder spg did not create"),  # a Stage I system's output_dir
])
def test_a_users_file_where_a_job_log_or_a_training_run_goes_is_refused_before_any_job_runs(
        recipe, tmp_path, capsys, mine, named):
    path = tmp_path / "out" / mine
    path.parent.mkdir(parents=True)
    path.write_text("my notes\n")
    assert main(["reproduce", "--config", str(recipe), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert named in err and len(err.splitlines()) == 1, err
    assert path.read_text() == "my notes\n" and len(list(path.parent.iterdir())) == 1

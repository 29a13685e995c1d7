"""spg.train.checkpoint: resuming starts from the newest checkpoint the Trainer finished writing."""

from spg.train.checkpoint import last_checkpoint


def test_the_checkpoint_to_resume_from_is_the_newest_whole_one(tmp_path, caplog):
    for step, whole in ((2, True), (10, True), (12, False)):  # 12: killed while saving (no trainer_state.json)
        folder = tmp_path / f"checkpoint-{step}"
        folder.mkdir()
        (folder / "adapter_model.safetensors").write_bytes(b"weights")
        if whole:
            (folder / "trainer_state.json").write_text("{}")
    (tmp_path / "checkpoint-99.txt").write_text("not a checkpoint")
    assert last_checkpoint(tmp_path) == str(tmp_path / "checkpoint-10")
    assert "checkpoint-12: no trainer_state.json" in caplog.text
    assert last_checkpoint(tmp_path / "absent") is None

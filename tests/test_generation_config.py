"""spg.generation.config: GenerateConfig holds one DecodeSettings, and a decoding option lives in three places."""

import argparse
import dataclasses
from pathlib import Path

from spg.config import config_keys, flags_from, load_config
from spg.generation.config import DecodeSettings, GenerateConfig

DOCS = Path(__file__).resolve().parents[1] / "docs" / "generation.md"


def test_every_decode_setting_is_a_documented_generate_key_that_reaches_the_decoder_as_set():
    keys, docs = config_keys(GenerateConfig), DOCS.read_text(encoding="utf-8")
    changed = {"max_new_tokens": 7, "min_new_tokens": 1, "do_sample": False, "temperature": 0.5,
               "no_repeat_ngram_size": 3, "repetition_penalty": 1.1, "boundary_temperature": 0.7,
               "cache_implementation": "dynamic", "compile": False, "merge_adapters": False, "defer_stop_check": False,
               "runtime": "torch", "prompt_lookup_tokens": 4, "onnx_weights": "blocks", "redraws": 2,
               "redraw_tokens": 50, "redraw_temperature": 0.9, "redraw_stop_at": "limitation",
               "restatement": "read",
               "block_repeated_limitations": False, "deterministic": True}
    assert set(changed) == {f.name for f in dataclasses.fields(DecodeSettings)}, "a new option: add it here too"
    config = load_config(GenerateConfig, values=("test", changed))
    assert config.decode == DecodeSettings(**changed)  # what load_generator receives, field for field
    for name in changed:
        assert keys[name][0] == ("decode",) and f"`{name}`" in docs, name


def test_a_new_decoding_option_needs_its_field_its_docs_line_and_its_flag_only():
    """docs/contributing.md: the option below is added as a field (here in a subclass, as the test cannot edit
    DecodeSettings) and a flag; the YAML key, the flag's mapping, the type check and the precedence follow."""
    decode = dataclasses.make_dataclass("Decode", [("top_k", int, 0)], bases=(DecodeSettings,), frozen=True)
    holder = dataclasses.make_dataclass(
        "Generate", [("decode", decode, dataclasses.field(default_factory=decode))], bases=(GenerateConfig,),
        frozen=True)
    parser = argparse.ArgumentParser()
    parser.add_argument("--top-k", type=int)
    assert load_config(holder, values=("file", {"top_k": 3})).decode.top_k == 3
    args = parser.parse_args(["--top-k", "5"])
    assert load_config(holder, values=("file", {"top_k": 3}), flags=flags_from(args, holder)).decode.top_k == 5

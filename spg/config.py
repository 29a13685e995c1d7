"""Dataclass configs from YAML files, flags and ``key=value`` overrides: spg's one config reader and validation point.

    cfg = load_config(Stage1Config, "configs/cpu/smollm2-stage1.yaml", ["learning_rate=1e-4", "max_steps=5"])

Precedence, lowest first: the dataclass defaults < ``base`` (a file of defaults beneath the config file, e.g. a
shipped model's own generate.yaml) < the config file < command-line flags < ``key=value`` overrides.

Keys are checked against the dataclass (a field whose type is itself a dataclass contributes its keys at the top
level, so a config can *hold* another one, e.g. GenerateConfig holds DecodeSettings, and the YAML stays flat): an
unknown key is an error naming where it came from and listing the valid keys. Values are checked against the
field's type, then the config's own ``check()`` runs; a :class:`Invalid` it raises is reported against the layer
the key came from (``c.yaml: temperature``, ``--temperature``, ``override 'temperature=-1'``). Nothing here imports
torch, so every command answers a bad config or flag before torch loads.

The YAML reader refuses what no config needs and what a hostile file uses: aliases (a 9-level "billion laughs"
would otherwise expand into gigabytes), duplicate keys (the last one silently won), integers longer than Python's
int-string limit and lone surrogates (both crashed later, far from the file). Every refusal is one line naming the
file, line and column.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import types
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import yaml

from spg.errors import InputError

T = TypeVar("T")
SHOWN = 80  # characters of a value quoted in a message


class ConfigError(InputError):
    """A config file or override that cannot be used; the message names it, the key and what was expected."""


class Invalid(ValueError):
    """Raised by a config's ``check()``: ``key``'s value is not usable; ``why`` says what was expected."""

    def __init__(self, key: str, why: str):
        super().__init__(f"{key} {why}")
        self.key, self.why = key, why


# ---- the YAML reader --------------------------------------------------------------------------------------------


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, minus aliases and duplicate keys, with big integers and lone surrogates refused."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, f"alias *{event.anchor[:SHOWN]} (spg configs allow no aliases; write the value out)",
                event.start_mark)
        return super().compose_node(parent, index)

    def construct_mapping(self, node, deep=False):
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, typing.Hashable) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {_shown(key)} (first at line {seen[key]})", key_node.start_mark)
            if isinstance(key, typing.Hashable):
                seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep)

    def construct_yaml_int(self, node):
        try:
            return super().construct_yaml_int(node)
        except ValueError:  # longer than sys.get_int_max_str_digits()
            raise yaml.constructor.ConstructorError(
                None, None, f"an integer of {len(node.value)} digits (at most {sys.get_int_max_str_digits()})",
                node.start_mark) from None

    def construct_yaml_str(self, node):
        value = super().construct_yaml_str(node)
        if _SURROGATE.search(value):
            raise yaml.constructor.ConstructorError(
                None, None, "a lone surrogate escape (\\ud800-\\udfff) is not text", node.start_mark)
        return value


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)
_Loader.add_constructor("tag:yaml.org,2002:str", _Loader.construct_yaml_str)
_SURROGATE = re.compile("[\ud800-\udfff]")


def parse_yaml(text: str, source: str) -> Any:
    """``text`` read as YAML by the safe reader; a :class:`ConfigError` naming ``source``, line and column."""
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 (_Loader is a SafeLoader)
    except yaml.YAMLError as err:
        raise ConfigError(f"{source}{yaml_problem(err)}") from None
    except RecursionError:
        raise ConfigError(f"{source}: not valid YAML (nested too deeply)") from None


def read_yaml(path: str | Path) -> dict[str, Any]:
    """A YAML file holding a mapping of config keys (empty: ``{}``)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: cannot read config ({getattr(err, 'strerror', None) or err})") from None
    loaded = parse_yaml(text, str(path))
    if loaded is not None and not isinstance(loaded, dict):
        raise ConfigError(f"{path}: expected a mapping of config keys, got {type(loaded).__name__}")
    return loaded or {}


def yaml_problem(err: yaml.YAMLError) -> str:
    """Where and why YAML was rejected, on one line (PyYAML's own message spans several, with a caret)."""
    mark = getattr(err, "problem_mark", None)
    where = f" line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    problem = ": ".join(filter(None, (getattr(err, "context", None), getattr(err, "problem", None))))
    return f"{where}: not valid YAML ({' '.join((problem or 'syntax error').split())})"


def _shown(value: Any) -> str:
    text = ascii(value)  # escapes control characters and surrogates: safe on any terminal
    return text if len(text) <= SHOWN else f"{text[:SHOWN]}… ({len(text)} characters)"


# ---- layers and precedence --------------------------------------------------------------------------------------

Flag = tuple[str, str, Any]  # (the flag as typed, e.g. "--greedy"; the config key; its value)


def flags_from(args: Any, cls: type, names: Mapping[str, str] | None = None) -> list[Flag]:
    """The flags given on a command line (an argparse namespace) whose ``dest`` is a key of ``cls``; a flag is
    named ``--key-with-dashes`` unless ``names`` says otherwise. A new flag needs only its ``add_argument``."""
    keys = config_keys(cls)
    return [((names or {}).get(dest, f"--{dest.replace('_', '-')}"), dest, value)
            for dest, value in vars(args).items() if dest in keys and value is not None]


def config_keys(cls: type) -> dict[str, tuple[tuple[str, ...], Any]]:
    """Every YAML key of ``cls``: key -> (the path of nested dataclass fields holding it, its type hint)."""
    keys: dict[str, tuple[tuple[str, ...], Any]] = {}
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        hint = hints[f.name]
        if dataclasses.is_dataclass(hint):
            keys.update({k: ((f.name, *path), h) for k, (path, h) in config_keys(hint).items()})
        else:
            keys[f.name] = ((), hint)
    return keys


def load_config(
    cls: type[T],
    path: str | Path | None = None,
    overrides: Sequence[str] = (),
    *,
    flags: Sequence[Flag] = (),
    base: str | Path | None = None,
    values: tuple[str, Mapping[str, Any]] | None = None,
    checked: bool = True,
    available: bool = False,
) -> T:
    """An instance of the dataclass ``cls``. Layers, lowest first: the defaults < ``base`` < ``values``
    (``(label, mapping)``: keys already read, e.g. one entry of a reproduction config) < the file ``path`` <
    ``flags`` < ``key=value`` overrides.

    ``checked``: the config's ``check()`` runs (what its values must be); ``available`` (the commands'
    choice): then its ``check_available()`` (what must exist on this machine: a model, a file). Both name the layer a bad key came from.
    """
    keys = config_keys(cls)
    chosen: dict[str, Any] = {}
    where: dict[str, str] = {}

    def take(source: str, mapping: Mapping[str, Any], at: str | None = None) -> None:
        for key, value in mapping.items():
            if key not in keys:
                raise ConfigError(f"{source}: unknown key {_shown(key)} for {cls.__name__}; valid keys: "
                                  f"{', '.join(sorted(keys))}")
            chosen[key], where[key] = value, at or f"{source}: {key}"

    if base is not None:
        take(str(base), read_yaml(base))
    if values is not None:
        take(*values)
    if path is not None:
        take(str(path), read_yaml(path))
    for flag, key, value in flags:
        take(flag, {key: value}, f"{key} ({flag})")
    for item in overrides:
        key, sep, raw = item.partition("=")
        source = f"override {_shown(item)}"
        if not sep or not key.strip():
            raise ConfigError(f"{source}: expected key=value")
        take(source, {key.strip(): parse_yaml(raw, source) if raw.strip() else ""})
    for key, value in chosen.items():
        chosen[key] = _coerce(value, keys[key][1], where[key])
    config = _build(cls(), chosen)
    hooks = ("check",) * checked + ("check_available",) * (checked and available)
    for check in filter(None, (getattr(config, hook, None) for hook in hooks)):
        try:
            check()
        except Invalid as err:
            raise ConfigError(f"{where[err.key]} {err.why}" if err.key in where else str(err)) from None
    return config


def _build(default: T, chosen: Mapping[str, Any]) -> T:
    """``default`` with ``chosen`` in place. A nested config starts from its holder's default for it (a stage's own
    defaults for its TrainingSettings, say), not from its class's."""
    keys = config_keys(type(default))
    top = {key: value for key, value in chosen.items() if not keys[key][0]}
    nested: dict[str, dict[str, Any]] = {}
    for key, value in chosen.items():
        if keys[key][0]:
            nested.setdefault(keys[key][0][0], {})[key] = value
    top.update({name: _build(getattr(default, name), inner) for name, inner in nested.items()})
    return dataclasses.replace(default, **top) if top else default


# ---- values -----------------------------------------------------------------------------------------------------


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# Which YAML values each scalar type accepts (an int is a valid float; a number is a valid str, e.g. a model tag).
_SCALARS = {
    type(None): lambda v: v is None,
    bool: lambda v: isinstance(v, bool),
    int: lambda v: isinstance(v, int) and not isinstance(v, bool),
    float: _number,
    str: lambda v: isinstance(v, str) or _number(v),
}


def _coerce(value: Any, hint: Any, where: str) -> Any:
    """Check ``value`` against a simple type hint (int/float/str/bool/None/list/dict/unions), converting int→float."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        for option in typing.get_args(hint):
            try:
                return _coerce(value, option, where)
            except ConfigError:
                continue
        raise ConfigError(f"{where}: {_shown(value)} is not a valid {_name(hint)}")
    if hint is Any:
        return value
    if origin is list or hint is list:
        if isinstance(value, list):
            (item,) = typing.get_args(hint) or (Any,)
            return [_coerce(v, item, where) for v in value]
    elif origin is dict or hint is dict:
        if isinstance(value, dict):
            return value
    elif hint in _SCALARS and _SCALARS[hint](value):
        if hint is float:
            try:
                return float(value)
            except OverflowError:
                raise ConfigError(f"{where}: {_shown(value)} is too large for a float") from None
        return str(value) if hint is str else value
    raise ConfigError(f"{where}: {_shown(value)} is not a valid {_name(hint)}")


def _name(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint)


# ---- checks shared by config types (no torch: they run before it loads) ------------------------------------------

_DEVICE = re.compile(r"(cpu|cuda|mps|xpu|npu|hpu|mlu|musa|meta)(:\d+)?")


def check_device(key: str, device: str | None) -> None:
    """``device`` is a torch device string (``cpu``, ``cuda``, ``cuda:N``, ...). Whether this machine has it is
    answered by spg.model.backbone.resolve_device, which needs torch, before any model loads."""
    if device is not None and not _DEVICE.fullmatch(device):
        raise Invalid(key, f"{_shown(device)} is not a device; expected cpu, cuda or cuda:N")


# What a Linux machine with a CUDA device has (NVIDIA's driver, ROCm's kernel driver for torch.cuda on AMD, WSL's GPU
# bridge), and where NVIDIA's driver lists its GPUs, one folder each.
GPU_DRIVERS = (Path("/proc/driver/nvidia"), Path("/dev/kfd"), Path("/dev/dxg"))
NVIDIA_GPUS = Path("/proc/driver/nvidia/gpus")


def check_device_present(key: str, device: str | None) -> None:
    """A CUDA ``device`` this machine certainly lacks, found without importing torch (~9 s): on Linux, no GPU driver
    at all, or an index past the GPUs NVIDIA's driver lists (CUDA_VISIBLE_DEVICES can only hide some). Anything less
    certain passes; spg.model.backbone.resolve_device (torch) has the last word before a model loads."""
    if device is None or sys.platform != "linux" or not device.startswith("cuda"):
        return
    if not any(path.exists() for path in GPU_DRIVERS):
        raise Invalid(key, f"{_shown(device)} is not available on this machine (no GPU driver, so no CUDA device); "
                           "expected cpu")
    index = device.partition(":")[2]
    if index and NVIDIA_GPUS.is_dir() and not GPU_DRIVERS[1].exists():
        count = sum(1 for _ in NVIDIA_GPUS.iterdir())
        if int(index) >= count:
            raise Invalid(key, f"{_shown(device)} is not available on this machine ({count} CUDA devices); expected "
                               + (f"cuda:0 to cuda:{count - 1}" if count else "cpu"))


# What a local model folder holds: a transformers model's config, or an SPG artefact's (spg.model.config).
_MODEL_FILES = ("config.json", "spg_config.json")


def check_model(key: str, name: str | None, *, shipped: Sequence[str] = ()) -> None:
    """``name`` is a local folder, a model shipped with spg, or a Hugging Face repo id (``org/name``) that the local
    hub cache holds (spg runs offline: HF_HUB_OFFLINE=0 lets transformers download it instead)."""
    if name is None or name in shipped:
        return
    folder = Path(name).expanduser()
    if folder.is_dir():
        if not any((folder / file).is_file() for file in _MODEL_FILES):
            raise Invalid(key, f"{_shown(name)}: a folder without a model (no {', '.join(_MODEL_FILES)}); expected a "
                               "Hugging Face model folder (save_pretrained) or an SPG artefact (spg train output)")
        return
    names = ", ".join(shipped)
    if not re.fullmatch(r"[\w-][\w.-]*(/[\w.-]+)?", name):
        raise Invalid(key, f"{_shown(name)}: no such local folder, and not a model shipped with spg ({names})")
    if os.environ.get("HF_HUB_OFFLINE", "1").lower() in ("0", "false") or _in_hub_cache(name):
        return
    raise Invalid(key, f"{_shown(name)}: no such local folder, not a model shipped with spg ({names}), and not "
                       "in the Hugging Face cache (spg is offline; HF_HUB_OFFLINE=0 lets it download)")


def _in_hub_cache(repo_id: str) -> bool:
    from huggingface_hub import try_to_load_from_cache

    try:
        return isinstance(try_to_load_from_cache(repo_id, "config.json"), str)
    except ValueError:  # not a valid repo id
        return False


def at_least(key: str, value: int | float | None, minimum: int | float, note: str = "") -> None:
    if value is not None and value < minimum:
        raise Invalid(key, f"must be at least {minimum}{note}, got {_shown(value)}")


def one_of(key: str, value: Any, allowed: Sequence[Any]) -> None:
    if value not in allowed:
        raise Invalid(key, f"must be one of {', '.join(map(str, allowed))}, got {_shown(value)}")

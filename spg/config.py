"""Dataclass configs from YAML files with ``key=value`` command-line overrides (used by both training stages).

    cfg = load_config(Stage1Config, "configs/cpu/smollm2-stage1.yaml", ["learning_rate=1e-4", "max_steps=5"])

Keys are checked against the dataclass: an unknown key in the file or in an override is an error
naming the file (or the override) and listing the valid keys. Override values are parsed as YAML
scalars (``3``, ``1e-4``, ``true``, ``null``, ``[q_proj, v_proj]``) and then checked against the field's type.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

import yaml

from spg.errors import InputError

T = TypeVar("T")


class ConfigError(InputError):
    """A config file or override that cannot be used; the message names it, the key and what was expected."""


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


def load_config(cls: type[T], path: str | Path | None = None, overrides: Sequence[str] = ()) -> T:
    """An instance of the dataclass ``cls`` from a YAML mapping, then ``key=value`` overrides."""
    values: dict[str, Any] = {}
    source = "defaults"
    if path is not None:
        source = str(path)
        try:
            loaded = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as err:
            raise ConfigError(f"{path}: cannot read config ({getattr(err, 'strerror', None) or err})") from None
        except yaml.YAMLError as err:
            raise ConfigError(f"{path}{yaml_problem(err)}; expected a YAML mapping of config keys") from None
        if loaded is not None and not isinstance(loaded, dict):
            raise ConfigError(f"{path}: expected a mapping of config keys, got {type(loaded).__name__}")
        values.update(loaded or {})
    fields = {f.name: f for f in dataclasses.fields(cls)}
    where = {key: f"{source}: {key}" for key in values}
    for key in values:
        _check_key(cls, fields, key, source)
    for item in overrides:
        key, sep, raw = item.partition("=")
        if not sep:
            raise ConfigError(f"override {item!r}: expected key=value")
        _check_key(cls, fields, key.strip(), f"override {item!r}")
        try:
            values[key.strip()] = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError as err:
            raise ConfigError(f"override {item!r}{yaml_problem(err)}; expected key=YAML value") from None
        where[key.strip()] = f"override {item!r}"
    hints = typing.get_type_hints(cls)
    for key, value in values.items():
        values[key] = _coerce(value, hints[key], where[key])
    return cls(**values)


def yaml_problem(err: yaml.YAMLError) -> str:
    """Where and why YAML was rejected, on one line (PyYAML's own message spans several, with a caret)."""
    mark = getattr(err, "problem_mark", None)
    where = f" line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    problem = ": ".join(filter(None, (getattr(err, "context", None), getattr(err, "problem", None))))
    return f"{where}: not valid YAML ({problem or 'syntax error'})"


def _check_key(cls: type, fields: dict, key: str, where: str) -> None:
    if key not in fields:
        raise ConfigError(f"{where}: unknown key {key!r} for {cls.__name__}; valid keys: {', '.join(sorted(fields))}")


def _coerce(value: Any, hint: Any, where: str) -> Any:
    """Check ``value`` against a simple type hint (int/float/str/bool/None/list/dict/unions), converting int→float."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        for option in typing.get_args(hint):
            try:
                return _coerce(value, option, where)
            except ConfigError:
                continue
        raise ConfigError(f"{where}: {value!r} is not a valid {_name(hint)}")
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
        return float(value) if hint is float else str(value) if hint is str else value
    raise ConfigError(f"{where}: {value!r} is not a valid {_name(hint)}")


def _name(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint)

"""What the schema says about its own keys: defaults as plain data, every dotted key with
its field, the output keys (paths a command writes) and the model that holds a key."""

from collections.abc import Iterator
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from rucola.settings.schema import Params
from rucola.settings.types import OUTPUT, Kind


def defaults_of(model: type[BaseModel]) -> dict[str, Any]:
    """Every key of ``model`` with its default (None for a required key), as plain data."""
    out: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        value = None if field.is_required() else field.get_default(call_default_factory=True)
        out[name] = value.model_dump() if isinstance(value, BaseModel) else _plain(value)
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _unwrap(tp: Any) -> tuple[Any, list[Any]]:
    """The type under ``Annotated`` and ``| None``, with the metadata found on the way."""
    metadata: list[Any] = []
    while True:
        origin = get_origin(tp)
        if origin is Annotated:
            tp, *meta = get_args(tp)
            metadata.extend(meta)
        elif origin in (Union, UnionType):
            rest = [a for a in get_args(tp) if a is not type(None)]
            if len(rest) != 1:
                return tp, metadata
            tp = rest[0]
        else:
            return tp, metadata


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _field_type(field: FieldInfo) -> tuple[Any, list[Any]]:
    tp, metadata = _unwrap(field.annotation)
    return tp, [*field.metadata, *metadata]


def iter_keys(model: type[BaseModel] = Params, prefix: str = "") -> Iterator[tuple[str, FieldInfo]]:
    """(dotted key, field) of every key, depth first; the items of user-named mappings and
    of lists of mappings appear as ``<name>`` and ``[i]``."""
    for name, field in model.model_fields.items():
        key = f"{prefix}{name}"
        yield key, field
        tp, _ = _field_type(field)
        if _is_model(tp):
            yield from iter_keys(tp, f"{key}.")
        elif get_origin(tp) is list and _is_model(_unwrap(get_args(tp)[0])[0]):
            yield from iter_keys(_unwrap(get_args(tp)[0])[0], f"{key}[i].")
        elif get_origin(tp) is dict and _is_model(_unwrap(get_args(tp)[1])[0]):
            item, metadata = _unwrap(get_args(tp)[1])
            label = "<name>" if name == "generators" else "<id>"
            yield from iter_keys(item, f"{key}.{label}.")
            yield from _chosen_keys(item, metadata, f"{key}.{label}.")


def _chosen_keys(
    base: type[BaseModel], metadata: list[Any], prefix: str
) -> Iterator[tuple[str, FieldInfo]]:
    """The keys of the models a registry chooses by name (each generation method's own),
    after their base's, each once."""
    from rucola.registry import SettingsByName

    seen = set(base.model_fields)
    for check in (getattr(m, "func", None) for m in metadata):
        if not isinstance(check, SettingsByName):
            continue
        for model in check.models().values():
            for name, field in model.model_fields.items():
                if name not in seen:
                    seen.add(name)
                    yield from _field_keys(name, field, prefix)


def _field_keys(name: str, field: FieldInfo, prefix: str) -> Iterator[tuple[str, FieldInfo]]:
    key = f"{prefix}{name}"
    yield key, field
    tp, _ = _field_type(field)
    if _is_model(tp):
        yield from iter_keys(tp, f"{key}.")


def _item(data: Any, part: str | int) -> Any:
    if isinstance(data, dict):
        return data.get(part)
    if isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
        return data[part]
    return None


def _chosen_model(tp: Any, data: Any) -> type[BaseModel] | None:
    """The model a registry picks for ``data`` (its ``method``...), if ``tp`` is such a
    choice and ``data`` names a known one."""
    from rucola.registry import SettingsByName

    _, metadata = _unwrap(tp)
    for check in (getattr(m, "func", None) for m in metadata):
        if isinstance(check, SettingsByName) and isinstance(data, dict):
            return check.models().get(data.get(check.key))
    return None


def _role(field: FieldInfo) -> str:
    _, metadata = _field_type(field)
    return next((m.role for m in metadata if isinstance(m, Kind)), "")


def output_fields(model: type[BaseModel]) -> list[str]:
    """The keys of one section (not of its subsections) whose values are paths it writes."""
    return [name for name, field in model.model_fields.items() if _role(field) == OUTPUT]


def output_keys() -> list[str]:
    """Every key whose value is a path a command writes (checked to stay in the repository)."""
    return [key for key, field in iter_keys() if _role(field) == OUTPUT and "<" not in key]


def model_at(
    loc: tuple[str | int, ...], root: type[BaseModel] = Params, data: Any = None
) -> type[BaseModel] | None:
    """The section model that holds the key at ``loc`` + one more part, if any. ``data``
    (the params as read) picks the model a registry chooses by name (a generator's
    method's own model); without it, their base."""
    tp: Any = root
    for part in loc:
        tp, metadata = _unwrap(tp)
        if _is_model(tp):
            field = tp.model_fields.get(part) if isinstance(part, str) else None
            if field is None:
                return None
            tp = field.annotation
        elif get_origin(tp) in (list, dict):
            tp = get_args(tp)[-1]
        else:
            return None
        data = _item(data, part)
        chosen = _chosen_model(tp, data)
        if chosen is not None:
            tp = chosen
    tp, _ = _unwrap(tp)
    return tp if _is_model(tp) else None

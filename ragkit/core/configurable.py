"""Configurable runnables: fields and alternatives chosen per call by ``config["configurable"]``.

As in langchain-core::

    model.configurable_fields(temperature=ConfigurableField(id="temp"))
    prompt.configurable_alternatives(ConfigurableField(id="prompt"), default_key="joke",
                                     poem=other_prompt)
    chain.invoke(x, config={"configurable": {"temp": 0.2, "prompt": "poem"}})

A configured call builds a new instance of the runnable with the chosen field values
(validated, for pydantic runnables such as chat models) or picks the chosen alternative;
a call without those keys uses the runnable as it is. ``config_specs`` lists every
configurable key of a chain and ``config_schema()`` describes them as a pydantic model.
Nothing here runs unless a runnable was made configurable.

Example:
    >>> from ragkit.models import FakeChatModel
    >>> model = FakeChatModel(["a", "b"]).configurable_fields(
    ...     responses=ConfigurableField(id="replies", name="Replies"))
    >>> model.invoke("hi").content, model.invoke("hi", {"configurable": {"replies": ["z"]}}).content
    ('a', 'z')
    >>> [spec.id for spec in model.config_specs]
    ['replies']
"""

from __future__ import annotations

import copy
import enum
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from itertools import groupby
from typing import Any, NamedTuple

from pydantic import BaseModel, Field, create_model

from ragkit.core.base import Runnable
from ragkit.core.config import RunnableConfig, ensure_config, get_config_list, merge_configs
from ragkit.core.ends import TypesOfEnds
from ragkit.errors import ConfigurationError


class ConfigurableField(NamedTuple):
    """A field of a runnable that a call may set: ``config["configurable"][id]``."""

    id: str
    name: str | None = None
    description: str | None = None
    annotation: Any | None = None
    is_shared: bool = False

    def __hash__(self) -> int:
        return hash((self.id, self.annotation))


class ConfigurableFieldSingleOption(NamedTuple):
    """A field set to one of named ``options`` (``default`` names the one used by default)."""

    id: str
    options: Mapping[str, Any]
    default: str
    name: str | None = None
    description: str | None = None
    is_shared: bool = False

    def __hash__(self) -> int:
        return hash((self.id, tuple(self.options.keys()), self.default))


class ConfigurableFieldMultiOption(NamedTuple):
    """A field set to a list of values picked by name from ``options``."""

    id: str
    options: Mapping[str, Any]
    default: Sequence[str]
    name: str | None = None
    description: str | None = None
    is_shared: bool = False

    def __hash__(self) -> int:
        return hash((self.id, tuple(self.options.keys()), tuple(self.default)))


AnyConfigurableField = (
    ConfigurableField | ConfigurableFieldSingleOption | ConfigurableFieldMultiOption
)


class ConfigurableFieldSpec(NamedTuple):
    """One configurable key of a runnable: its id, type, default and description."""

    id: str
    annotation: Any
    name: str | None = None
    description: str | None = None
    default: Any = None
    is_shared: bool = False
    dependencies: list[str] | None = None


def get_unique_config_specs(specs: Iterable[ConfigurableFieldSpec]) -> list[ConfigurableFieldSpec]:
    """``specs`` sorted by id with duplicates folded; two different specs for one id raise."""
    ordered = sorted(specs, key=lambda s: (s.id, *(s.dependencies or [])))
    unique: list[ConfigurableFieldSpec] = []
    for spec_id, group in groupby(ordered, lambda s: s.id):
        first, *others = list(group)
        if any(o != first for o in others):
            raise ConfigurationError(
                f"conflicting config specs for {spec_id!r}: {[first, *others]}; give the "
                "configurable fields different ids"
            )
        unique.append(first)
    return unique


_ENUMS: dict[Any, type[enum.Enum]] = {}
_ENUMS_LOCK = threading.Lock()


def _options_enum(name: str, keys: Iterable[str]) -> type[enum.Enum]:
    """A str Enum of option names (cached, so the same options give the same class)."""
    values = tuple(keys)
    with _ENUMS_LOCK:
        found = _ENUMS.get((name, values))
        if found is None:
            made: Any = enum.Enum(name, [(v, v) for v in values], type=str)  # type: ignore[misc]
            found = _ENUMS[(name, values)] = made
    return found


def _options_spec(
    spec: ConfigurableFieldSingleOption | ConfigurableFieldMultiOption, description: str | None
) -> ConfigurableFieldSpec:
    options = _options_enum(spec.name or spec.id, spec.options.keys())
    multi = isinstance(spec, ConfigurableFieldMultiOption)
    return ConfigurableFieldSpec(
        id=spec.id,
        name=spec.name,
        description=spec.description or description,
        annotation=Sequence[options] if multi else options,  # type: ignore[valid-type]
        default=spec.default,
        is_shared=spec.is_shared,
    )


# -- collecting the specs of a tree of runnables ------------------------------------------------
def _children(runnable: Runnable[Any, Any]) -> Iterator[Runnable[Any, Any]]:
    """The runnables held in ``runnable``'s attributes (steps, branches, bound, ...): directly,
    or in a list, tuple or dict up to two levels deep (a branch's (condition, runnable) pairs)."""

    def walk(value: Any, depth: int) -> Iterator[Runnable[Any, Any]]:
        if isinstance(value, Runnable):
            yield value
        elif depth < 2 and isinstance(value, (list, tuple)):
            for item in value:
                yield from walk(item, depth + 1)
        elif depth < 2 and isinstance(value, dict):
            for item in value.values():
                yield from walk(item, depth + 1)

    for value in getattr(runnable, "__dict__", {}).values():
        yield from walk(value, 0)


def collect_config_specs(root: Runnable[Any, Any]) -> list[ConfigurableFieldSpec]:
    """Every configurable key found in ``root`` and the runnables it holds."""
    specs: list[ConfigurableFieldSpec] = []
    seen: set[int] = set()
    todo = [root]
    while todo:
        runnable = todo.pop()
        if id(runnable) in seen:
            continue
        seen.add(id(runnable))
        if runnable is not root and type(runnable).config_specs is not Runnable.config_specs:
            specs.extend(runnable.config_specs)  # its own (or a user's) definition
            continue
        specs.extend(runnable._own_config_specs())
        todo.extend(runnable._config_children())
    return get_unique_config_specs(specs)


def config_schema(
    runnable: Runnable[Any, Any], include: Sequence[str] | None = None
) -> type[BaseModel]:
    """A pydantic model of the config ``runnable`` accepts (``configurable`` and ``include`` keys)."""
    from typing import get_type_hints

    specs = runnable.config_specs
    fields: dict[str, Any] = {}
    if specs:
        configurable = create_model(  # type: ignore[call-overload]
            "Configurable",
            **{
                s.id: (s.annotation, Field(s.default, title=s.name, description=s.description))
                for s in specs
            },
        )
        fields["configurable"] = (configurable, None)
    hints = get_type_hints(RunnableConfig)
    for key in include or []:
        if key != "configurable" and key in hints:
            fields[key] = (hints[key], None)
    return create_model(runnable.get_name("Config"), **fields)


# -- the configurable wrappers -------------------------------------------------------------------
class DynamicRunnable(TypesOfEnds, Runnable[Any, Any]):
    """A runnable decided per call from the config; every method runs the prepared one."""

    default: Runnable[Any, Any]

    def _prepare(self, config: RunnableConfig) -> tuple[Runnable[Any, Any], RunnableConfig]:
        raise NotImplementedError

    def prepare(
        self, config: RunnableConfig | None = None
    ) -> tuple[Runnable[Any, Any], RunnableConfig]:
        """The runnable and config this call uses (configurable wrappers resolved)."""
        runnable: Runnable[Any, Any] = self
        cfg = ensure_config(config)
        while isinstance(runnable, DynamicRunnable):
            runnable, cfg = runnable._prepare(cfg)
        return runnable, cfg

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        return self.default.get_name(suffix, name=name or self.name)

    @property
    def input_end(self) -> Runnable[Any, Any]:
        return self.default  # its types; the schemas follow the runnable chosen per call

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        runnable, cfg = self.prepare(config)
        return runnable.get_input_schema(cfg)

    def get_output_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        runnable, cfg = self.prepare(config)
        return runnable.get_output_schema(cfg)

    def get_graph(self, config: RunnableConfig | None = None) -> Any:
        runnable, cfg = self.prepare(config)
        return runnable.get_graph(cfg)

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        runnable, cfg = self.prepare(config)
        return runnable.invoke(input, cfg, **kwargs)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        runnable, cfg = self.prepare(config)
        return await runnable.ainvoke(input, cfg, **kwargs)

    def batch(
        self,
        inputs: Sequence[Any],
        config: RunnableConfig | Sequence[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        configs = get_config_list(config, len(inputs))
        prepared = [self.prepare(c) for c in configs]
        if prepared and all(p[0] is prepared[0][0] for p in prepared):
            runnable = prepared[0][0]
            return runnable.batch(
                list(inputs),
                [p[1] for p in prepared],
                return_exceptions=return_exceptions,
                **kwargs,
            )
        return super().batch(inputs, config, return_exceptions=return_exceptions, **kwargs)

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        runnable, cfg = self.prepare(config)
        yield from runnable.stream(input, cfg, **kwargs)

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        runnable, cfg = self.prepare(config)
        async for chunk in runnable.astream(input, cfg, **kwargs):
            yield chunk

    def transform(
        self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        runnable, cfg = self.prepare(config)
        yield from runnable.transform(input, cfg, **kwargs)

    async def atransform(
        self, input: AsyncIterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        runnable, cfg = self.prepare(config)
        async for chunk in runnable.atransform(input, cfg, **kwargs):
            yield chunk


def _settable_fields(runnable: Runnable[Any, Any]) -> dict[str, Any]:
    """Field name -> pydantic FieldInfo (None for plain attributes) of what may be configured."""
    if isinstance(runnable, BaseModel):
        return dict(type(runnable).model_fields)
    return {k: None for k in vars(runnable) if not k.startswith("_")}


def _with_values(runnable: Runnable[Any, Any], values: dict[str, Any]) -> Runnable[Any, Any]:
    """A new instance of ``runnable`` with ``values`` (validated again for pydantic models)."""
    if isinstance(runnable, BaseModel):
        current = {k: getattr(runnable, k) for k in type(runnable).model_fields if k not in values}
        return type(runnable)(**current, **values)
    clone = copy.copy(runnable)
    for key, value in values.items():
        setattr(clone, key, value)
    return clone


class RunnableConfigurableFields(DynamicRunnable):
    """``default`` with some fields set per call (``runnable.configurable_fields(...)``)."""

    def __init__(
        self, default: Runnable[Any, Any], fields: Mapping[str, AnyConfigurableField]
    ) -> None:
        available = _settable_fields(default)
        unknown = sorted(set(fields) - set(available))
        if unknown:
            raise ConfigurationError(
                f"configuration keys {unknown} are not fields of {default.get_name()}; available "
                f"keys are {sorted(available)}"
            )
        self.default = default
        self.fields = dict(fields)
        self.name = None

    def __repr__(self) -> str:
        return f"RunnableConfigurableFields(default={self.default!r}, fields={self.fields})"

    def _own_config_specs(self) -> list[ConfigurableFieldSpec]:
        available = _settable_fields(self.default)
        specs = []
        for key, field in self.fields.items():
            info = available.get(key)
            if isinstance(field, ConfigurableField):
                specs.append(
                    ConfigurableFieldSpec(
                        id=field.id,
                        name=field.name,
                        description=field.description or (info.description if info else None),
                        annotation=field.annotation or (info.annotation if info else Any),
                        default=getattr(self.default, key),
                        is_shared=field.is_shared,
                    )
                )
            else:
                specs.append(_options_spec(field, info.description if info else None))
        return specs

    def _config_children(self) -> list[Runnable[Any, Any]]:
        return [self.default]

    def configurable_fields(self, **kwargs: AnyConfigurableField) -> RunnableConfigurableFields:
        return RunnableConfigurableFields(self.default, {**self.fields, **kwargs})

    def _prepare(self, config: RunnableConfig) -> tuple[Runnable[Any, Any], RunnableConfig]:
        chosen = config.get("configurable") or {}
        values: dict[str, Any] = {}
        for key, field in self.fields.items():
            if isinstance(field, ConfigurableField):
                if field.id in chosen:
                    values[key] = chosen[field.id]
            elif isinstance(field, ConfigurableFieldSingleOption):
                values[key] = _option(field, chosen.get(field.id) or field.default)
            else:
                names = chosen.get(field.id, field.default)
                values[key] = [_option(field, n) for n in names]
        if not values:
            return self.default, config
        return _with_values(self.default, values), config


def _option(field: ConfigurableFieldSingleOption | ConfigurableFieldMultiOption, name: Any) -> Any:
    key = getattr(name, "value", name)
    if key not in field.options:
        raise ConfigurationError(
            f"configurable {field.id!r}: {key!r} is not one of the options {sorted(field.options)}"
        )
    return field.options[key]


class RunnableConfigurableAlternatives(DynamicRunnable):
    """``default`` or one of ``alternatives``, chosen per call by ``config["configurable"][which.id]``."""

    def __init__(
        self,
        which: ConfigurableField,
        default: Runnable[Any, Any],
        alternatives: Mapping[str, Runnable[Any, Any] | Callable[[], Runnable[Any, Any]]],
        default_key: str = "default",
        prefix_keys: bool = False,
    ) -> None:
        if default_key in alternatives:
            raise ConfigurationError(
                f"configurable_alternatives: {default_key!r} names the default; give the "
                "alternative another key or pass default_key="
            )
        self.which = which
        self.default = default
        self.alternatives = dict(alternatives)
        self.default_key = default_key
        self.prefix_keys = prefix_keys
        self.name = None

    def __repr__(self) -> str:
        return (
            f"RunnableConfigurableAlternatives(which={self.which.id!r}, default={self.default!r}, "
            f"alternatives={sorted(self.alternatives)})"
        )

    def _own_config_specs(self) -> list[ConfigurableFieldSpec]:
        keys = [*self.alternatives, self.default_key]
        specs = [
            ConfigurableFieldSpec(
                id=self.which.id,
                name=self.which.name,
                description=self.which.description,
                annotation=_options_enum(self.which.name or self.which.id, keys),
                default=self.default_key,
                is_shared=self.which.is_shared,
            )
        ]
        if self.prefix_keys:
            choices = [(self.default_key, self.default)]
            choices += [(k, a) for k, a in self.alternatives.items() if isinstance(a, Runnable)]
            for key, runnable in choices:
                prefix = f"{self.which.id}=={key}/"
                specs += [
                    s if s.is_shared else s._replace(id=prefix + s.id)
                    for s in runnable.config_specs
                ]
        return specs

    def _config_children(self) -> list[Runnable[Any, Any]]:
        if self.prefix_keys:
            return []
        return [self.default, *(a for a in self.alternatives.values() if isinstance(a, Runnable))]

    def _prepare(self, config: RunnableConfig) -> tuple[Runnable[Any, Any], RunnableConfig]:
        chosen = config.get("configurable") or {}
        which = chosen.get(self.which.id, self.default_key)
        which = getattr(which, "value", which)
        if self.prefix_keys:
            prefix = f"{self.which.id}=={which}/"
            unprefixed = {k.removeprefix(prefix): v for k, v in chosen.items()}
            config = merge_configs(config, {"configurable": unprefixed})
        if which == self.default_key:
            return self.default, config
        if which in self.alternatives:
            alternative = self.alternatives[which]
            return (alternative if isinstance(alternative, Runnable) else alternative()), config
        raise ConfigurationError(
            f"configurable {self.which.id!r}: unknown alternative {which!r}; choose one of "
            f"{sorted([self.default_key, *self.alternatives])}"
        )


__all__ = [
    "AnyConfigurableField",
    "ConfigurableField",
    "ConfigurableFieldMultiOption",
    "ConfigurableFieldSingleOption",
    "ConfigurableFieldSpec",
    "DynamicRunnable",
    "RunnableConfigurableAlternatives",
    "RunnableConfigurableFields",
    "collect_config_specs",
    "config_schema",
    "get_unique_config_specs",
]

"""``record``: the class ``dataclasses.dataclass`` makes, made at a fraction of its import-time cost.

Every ``phobos-check`` defines about ninety dataclasses (the AST's nodes, the types, the
diagnostics, the analyses' tables); the dataclass decorator compiles up to six methods for each
(and builds a class twice for ``slots=True``, and computes a signature for a class without a
docstring), which was a third of a tiny check's own start-up (issue 22). ``record`` takes the
same options (``frozen``, ``slots``, ``eq``) and gives the same class: the fields
(``dataclasses.fields``, ``is_dataclass``, ``replace`` and ``asdict`` see them), ``__slots__``,
``__match_args__``, the ``__init__`` signature with its defaults and default factories, equality
over the compared fields (``__hash__`` over their tuple when frozen, ``None`` when not), the repr
over the repr'd fields (recursion-safe), ``FrozenInstanceError`` on assigning or deleting a field
of a frozen one, and pickling of frozen slotted ones. Methods the class defines itself are kept.
Only ``__init__`` is compiled (one small ``exec`` per class, for the speed of building objects);
the others are shared functions. The one difference: a class without a docstring keeps
``__doc__`` None (a dataclass gets its signature there).

Limits, asserted: no dataclass base class, no ``ClassVar``/``InitVar``, no field called ``self``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import MISSING, Field, FrozenInstanceError, field
from operator import attrgetter
from reprlib import recursive_repr

# the marker by which ``dataclasses.fields`` tells a field from a pseudo-field (the same since 3.7)
_FIELD_TYPE = dataclasses._FIELD


class _Factory:
    """A parameter's default that means "call the field's default factory" (shown as <factory>)."""

    def __repr__(self) -> str:
        return "<factory>"


_HAS_FACTORY = _Factory()


@recursive_repr()
def _repr(self) -> str:
    return f"{type(self).__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self._record_repr_)})"


def _eq(self, other):
    if other.__class__ is self.__class__:
        return self._record_key_(self) == self._record_key_(other)
    return NotImplemented


def _hash(self):
    return hash(self._record_key_(self))


def _frozen(self, name: str) -> bool:
    return "__dataclass_fields__" in type(self).__dict__ or name in self.__dataclass_fields__


def _setattr(self, name, value):
    if _frozen(self, name):
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    object.__setattr__(self, name, value)


def _delattr(self, name):
    if _frozen(self, name):
        raise FrozenInstanceError(f"cannot delete field {name!r}")
    object.__delattr__(self, name)


def _getstate(self):
    return [getattr(self, n) for n in self.__dataclass_fields__]


def _setstate(self, state):
    for n, v in zip(self.__dataclass_fields__, state):
        object.__setattr__(self, n, v)


def record(cls: type | None = None, /, *, frozen: bool = False, slots: bool = False, eq: bool = True):
    """``@record``, ``@record(frozen=True, slots=True)``...: as ``@dataclass`` with those options."""
    if cls is None:
        return lambda c: _make(c, frozen, slots, eq)
    return _make(cls, frozen, slots, eq)


def _make(cls: type, frozen: bool, slots: bool, eq: bool) -> type:
    own = cls.__dict__
    assert not any(hasattr(b, "__dataclass_fields__") for b in cls.__mro__[1:]), cls
    annotations = own.get("__annotations__", {})
    fields = {}
    for n, annotation in annotations.items():
        value = own.get(n, MISSING)
        f = value if isinstance(value, Field) else field(default=value)
        assert n != "self" and "ClassVar" not in str(annotation) and "InitVar" not in str(annotation), (cls, n)
        f.name, f.type, f._field_type, f.kw_only = n, annotation, _FIELD_TYPE, False
        fields[n] = f
    names = tuple(fields)
    methods = {"__dataclass_fields__": fields, "__match_args__": tuple(n for n, f in fields.items() if f.init),
               "__repr__": _repr,
               "_record_repr_": tuple(n for n, f in fields.items() if f.repr)}
    if eq:
        compared = [n for n, f in fields.items() if f.compare]
        if len(compared) == 1:
            get = attrgetter(compared[0])
            key = lambda node: (get(node),)  # noqa: E731 - a tuple, as the dataclass compares and hashes
        else:
            key = attrgetter(*compared) if compared else (lambda node: ())
        methods.update(__eq__=_eq, _record_key_=staticmethod(key))
        # as the dataclass: a ``__hash__`` of the class's own is kept (not the None that Python
        # puts there for a class that defines ``__eq__``)
        if own.get("__hash__", MISSING) is MISSING or (own["__hash__"] is None and "__eq__" in own):
            methods["__hash__"] = _hash if frozen else None
    if frozen:
        methods.update(__setattr__=_setattr, __delattr__=_delattr)
    if slots:
        ns = {k: v for k, v in own.items() if k not in fields and k not in ("__dict__", "__weakref__")}
        ns["__slots__"] = names
        if frozen:
            methods.update(__getstate__=_getstate, __setstate__=_setstate)
        new = type(cls)(cls.__name__, cls.__bases__, ns)
        new.__qualname__ = cls.__qualname__
    else:
        new = cls
        for n, f in fields.items():
            if isinstance(own.get(n), Field):
                if f.default is MISSING:
                    delattr(cls, n)
                else:
                    setattr(cls, n, f.default)
    for k, v in methods.items():
        if k not in own or k in ("__dataclass_fields__", "__hash__"):
            setattr(new, k, v)
    if "__init__" not in own:
        new.__init__ = _init(new, fields, frozen, slots)
    return new


def _init(cls: type, fields: dict, frozen: bool, slots: bool):
    params, body, env = [], [], {"_HAS_FACTORY": _HAS_FACTORY, "_set": object.__setattr__}
    for n, f in fields.items():
        if not f.init:
            if f.default_factory is not MISSING:
                env[f"_f_{n}"] = f.default_factory
                value = f"_f_{n}()"
            elif f.default is not MISSING:
                env[f"_d_{n}"] = f.default
                value = f"_d_{n}"
            else:
                continue
        elif f.default_factory is not MISSING:
            env[f"_f_{n}"] = f.default_factory
            params.append(f"{n}=_HAS_FACTORY")
            value = f"_f_{n}() if {n} is _HAS_FACTORY else {n}"
        else:
            if f.default is not MISSING:
                env[f"_d_{n}"] = f.default
            params.append(n if f.default is MISSING else f"{n}=_d_{n}")
            value = n
        if frozen and slots:
            env[f"_s_{n}"] = getattr(cls, n).__set__        # the slot's own setter: frozen-proof
            body.append(f"  _s_{n}(self, {value})")
        elif frozen:
            body.append(f"  _set(self, {n!r}, {value})")
        else:
            body.append(f"  self.{n} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("  self.__post_init__()")
    exec(f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) or "  pass"), env)
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = {**{n: f.type for n, f in fields.items() if f.init}, "return": None}
    return init

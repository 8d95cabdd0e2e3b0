"""The Jinja2 side of std::template (spec A.8), run in the embedded CPython.

It is what the reference std module (5.2, plugins/__init__.py) sets up around Jinja2: a
PrefixLoader over the templates/ folders ("" = the project's), StrictUndefined, a context class
that first asks the calling statement's scope for a name, proxies over the compiler's values and
every plugin as a filter named with "." instead of "::". template.cpp runs this file once, as the
module `inmanta_plugins.std` (the name the reference's classes carry in Jinja's messages, e.g.
"'inmanta_plugins.std.DictProxy object' has no attribute 'x'"), after defining its native
functions:

    _lookup(name)                  the caller's variable `name`, or _NOT_FOUND; `missing` for an
                                   optional relation frozen empty
    _attribute(value, name)        an instance's attribute, or _NOT_FOUND when it has none or it
                                   is an optional relation frozen empty
    _item(value, key)              an element of a list (int or slice) or a dict (str)
    _length(value), _keys(value)   size of a list or dict; a dict's keys
    _repr(value)                   the reference's proxy repr: "@" + repr of the value
    _display(value)                an instance as messages name it: "E (instantiated at ...)"
    _equals(value, other), _hash(value)
    _call_plugin(name, args)       calls the plugin `name` (std::upper) with Python values
    _templates_folder(prefix)      the templates/ folder of a module ("" = the project), or None

Values are `_Value` handles (a compiler value held by C++); _lookup, _attribute, _item and
_call_plugin return plain Python values or one of the proxies below. Reading a value that is not
ready, an unknown value or a compiler error unwinds through here as a RelayedException that no
code in this file catches.
"""

import collections.abc

import jinja2
import jinja2.runtime
from jinja2 import Environment, FileSystemLoader, PrefixLoader, StrictUndefined, Undefined

_NOT_FOUND = object()


class JinjaDynamicProxy:
    """An entity instance: attributes are read through the compiler."""

    __slots__ = ("_value",)

    def __init__(self, value):
        object.__setattr__(self, "_value", value)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        value = _attribute(self._value, name)
        if value is _NOT_FOUND:
            # reference: a missing attribute or an empty optional relation is a lenient
            # Undefined, so it renders as "" and tests false
            return Undefined("variable %s not set on %s" % (name, _display(self._value)), self, name)
        return value

    def __setattr__(self, name, value):
        raise Exception("Readonly object")

    def __repr__(self):
        return _repr(self._value)

    def __eq__(self, other):
        return _equals(self._value, other)

    def __hash__(self):
        return _hash(self._value)


class _ContainerProxy:
    """What the list and dict proxies share: items, size, repr and equality via the compiler."""

    __slots__ = ("_value",)

    def __init__(self, value):
        self._value = value

    def __getitem__(self, key):
        return _item(self._value, key)

    def __len__(self):
        return _length(self._value)

    def __repr__(self):
        return _repr(self._value)

    def __eq__(self, other):
        return _equals(self._value, other)

    __hash__ = None


class SequenceProxy(_ContainerProxy, collections.abc.Sequence):
    """A list of the model."""

    __slots__ = ()

    def __iter__(self):
        for i in range(_length(self._value)):
            yield _item(self._value, i)


class DictProxy(_ContainerProxy, collections.abc.Mapping):
    """A dict of the model: string keys in insertion order."""

    __slots__ = ()

    def __iter__(self):
        return iter(_keys(self._value))


class ResolverContext(jinja2.runtime.Context):
    """Names the template does not define itself come from the resolver first."""

    def resolve_or_missing(self, key):
        value = self.parent["{{resolver"].lookup(key)
        if value is _NOT_FOUND:
            return super().resolve_or_missing(key)
        return value


class ScopeResolver:
    """The calling statement's scope (std::template called without keyword arguments)."""

    def lookup(self, key):
        return _lookup(key)


class EmptyResolver:
    """No scope: only the keyword arguments are visible."""

    def lookup(self, key):
        return _NOT_FOUND


class _TemplateFolders(dict):
    """PrefixLoader's mapping, filled on demand: a FileSystemLoader per module that has a
    templates/ folder, and the project's templates/ folder for the empty prefix."""

    def __missing__(self, prefix):
        folder = _templates_folder(prefix)
        if folder is None:
            raise KeyError(prefix)
        loader = self[prefix] = FileSystemLoader(folder)
        return loader


def _raise_if_contains_undefined(args):
    for arg in args:
        if isinstance(arg, StrictUndefined):
            str(arg)  # raises the UndefinedError naming it
        if isinstance(arg, Undefined):
            arg._fail_with_undefined_error()


def _plugin_filter(name):
    def safewrapper(*args):
        _raise_if_contains_undefined(args)
        return _call_plugin(name, args)

    return safewrapper


def make_environment(plugin_names):
    """One per compile, with the templates it has loaded."""
    env = Environment(loader=PrefixLoader(_TemplateFolders()), undefined=StrictUndefined)
    env.context_class = ResolverContext
    for name in plugin_names:
        env.filters[name.replace("::", ".")] = _plugin_filter(name)
    return {"env": env, "templates": {}}


def render(state, path, kwargs):
    """Renders `path` (module/file); kwargs None: the names resolve in the caller's scope."""
    templates = state["templates"]
    template = templates.get(path)
    if template is None:
        template = templates[path] = state["env"].get_template(path)
    if kwargs is None:
        variables = {"{{resolver": ScopeResolver()}
    else:
        variables = dict(kwargs)
        variables["{{resolver"] = EmptyResolver()
    return template.render(variables)

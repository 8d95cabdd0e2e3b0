from inmanta.execute.proxy import DynamicProxy
from inmanta.plugins import plugin

MADE = []


class Result:
    """Equal by code, as a server's answer object might be."""

    def __init__(self, code):
        self.code = code

    def __str__(self):
        return f"result {self.code}"

    def __repr__(self):
        return f"Result({self.code})"

    def __eq__(self, other):
        return isinstance(other, Result) and other.code == self.code

    def __hash__(self):
        return hash(self.code)


class Token:
    """Python's default equality: the same object only."""

    def __repr__(self):
        return "Token()"


class Number:
    """Equal to the int it stands for, from either side of ==."""

    def __init__(self, n):
        self.n = n

    def __eq__(self, other):
        return isinstance(other, int) and other == self.n


@plugin
def result(code: "int"):
    made = Result(code)
    MADE.append(made)
    return made


@plugin
def token():
    made = Token()
    MADE.append(made)
    return made


@plugin
def number(n: "int"):
    return Number(n)


@plugin
def raw_set():
    return {1, 2}


@plugin
def is_last(x: "any") -> "bool":
    """The object a plugin gets is a proxy of the very object made last."""
    return isinstance(x, DynamicProxy) and x._get_instance() is MADE[-1]


@plugin
def first_is_last(items: "any") -> "bool":
    return items[0]._get_instance() is MADE[-1]


@plugin
def code(x: "any") -> "int":
    return x._get_instance().code


@plugin
def read_code(x: "any") -> "int":
    return x.code


@plugin
def as_string(x: "any") -> "string":
    return x._get_instance()

from inmanta.execute.proxy import DynamicProxy
from inmanta.plugins import plugin

MADE = {}  # code -> the Result made for it last


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
    MADE[code] = made
    return made


@plugin
def token():
    return Token()


@plugin
def number(n: "int"):
    return Number(n)


@plugin
def raw_set():
    return {1, 2}


@plugin
def is_made(x: "any") -> "bool":
    """The object a plugin gets is a proxy of the very object result() made."""
    return isinstance(x, DynamicProxy) and x._get_instance() is MADE[x._get_instance().code]


@plugin
def first_is_made(items: "any") -> "bool":
    return items[0]._get_instance() is MADE[items[0]._get_instance().code]


@plugin
def code(x: "any") -> "int":
    return x._get_instance().code

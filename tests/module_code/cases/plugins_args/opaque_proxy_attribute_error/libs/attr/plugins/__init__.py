from inmanta.plugins import plugin


class Reply:
    code = 3


@plugin
def reply():
    return Reply()


@plugin
def code_of(x: "any") -> "int":
    return x.code

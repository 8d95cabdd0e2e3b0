from inmanta.plugins import plugin


class Result:
    def __init__(self, code):
        self.code = code


@plugin
def report(name: "string"):
    return Result(200)

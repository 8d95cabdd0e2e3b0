from inmanta.plugins import plugin


class Name:
    def __str__(self):
        return "name 3"


@plugin
def name() -> "string":
    return Name()

from inmanta.plugins import plugin


@plugin
def check(file: "std::WrongName") -> "bool":
    return False

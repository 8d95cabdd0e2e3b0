def exclaim(text):
    return text + "!"


def frame(text):
    return f"[{text}]"

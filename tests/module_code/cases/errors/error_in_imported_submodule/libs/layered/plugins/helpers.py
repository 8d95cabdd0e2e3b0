VALUE = 1
raise KeyError("helpers can not be loaded")

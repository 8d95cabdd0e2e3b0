"""
Names of the reference's runtime classes, for code that mentions them in annotations or ``isinstance``
checks. The model's values live in the C++ compiler: plugins see them through ``inmanta.execute.proxy``.
"""


class Instance:
    """An instance of an entity (only ever seen through a DynamicProxy here)."""


class ResultVariable:
    pass


class Resolver:
    pass


class QueueScheduler:
    pass

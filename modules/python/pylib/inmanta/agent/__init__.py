"""The agent side of inmanta: handlers (``inmanta.agent.handler``) and host access (``inmanta.agent.io``)."""

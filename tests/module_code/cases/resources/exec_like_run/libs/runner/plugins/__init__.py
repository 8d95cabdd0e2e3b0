import shlex
import subprocess

from inmanta.agent import handler
from inmanta.plugins import plugin
from inmanta.resources import Resource, resource


@plugin
def in_shell(command: "string"):
    """Wrap the command so that a shell runs it"""
    return subprocess.list2cmdline(["sh", "-c", command])


@resource("runner::Run", agent="host.name", id_attribute="command")
class Run(Resource):
    fields = (
        "command",
        "creates",
        "cwd",
        "environment",
        "onlyif",
        "path",
        "reload",
        "reload_only",
        "returns",
        "timeout",
        "unless",
        "skip_on_fail",
    )


@handler.provider("runner::Run", name="posix")
class PosixRun(handler.ResourceHandler):
    def available(self, resource):
        return self._io.file_exists("/bin/true")

    def check_resource(self, ctx, resource):
        return resource

    def list_changes(self, ctx, resource):
        execute = not (resource.creates and self._io.file_exists(resource.creates))
        ctx.set("execute", execute)
        return {}

    def do_changes(self, ctx, resource, changes):
        if ctx.get("execute"):
            args = shlex.split(resource.command)
            out, err, code = self._io.run(args[0], args[1:], None, resource.cwd or None, timeout=resource.timeout)
            if code not in resource.returns:
                raise handler.SkipResource(err) if resource.skip_on_fail else Exception(err)
            ctx.set_updated()

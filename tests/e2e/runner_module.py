"""A test module with its own Python handler (an exec::Run-style resource written for the suite),
shared by the deploy tests of `inmanta deploy` (deploy_test.py) and of `inmanta server`
(server_deploy_test.py): `runner::Run` runs `command` when `creates` does not exist yet."""

RUNNER_PLUGIN = '''\
import os
import subprocess
import time

from inmanta.agent.handler import CRUDHandler, ResourcePurged, provider
from inmanta.resources import PurgeableResource, resource


@resource("runner::Run", agent="agent", id_attribute="name")
class Run(PurgeableResource):
    fields = ("name", "command", "creates")


@provider("runner::Run", name="posix")
class RunHandler(CRUDHandler):
    def read_resource(self, ctx, resource):
        if not os.path.exists(resource.creates):
            raise ResourcePurged()

    def create_resource(self, ctx, resource):
        if resource.command.startswith("hang"):
            time.sleep(60)
        result = subprocess.run(resource.command, shell=True, capture_output=True, text=True)
        if result.returncode != 0:
            raise Exception("command failed with exit code %d" % result.returncode)
        ctx.info("ran %(command)s", command=resource.command)
        ctx.set_created()

    def update_resource(self, ctx, changes, resource):
        ctx.set_updated()

    def delete_resource(self, ctx, resource):
        os.remove(resource.creates)
        ctx.set_purged()
'''
RUNNER_MODEL = '''\
entity Run extends std::PurgeableResource:
  string name
  string command
  string creates
  string agent = "internal"
end
implement Run using std::none
'''

RUNNER_MODULE_YML = "name: runner\nversion: 1.0.0\nlicense: ASL\n"


def runner_module_files(plugin=RUNNER_PLUGIN):
    """The module's files, relative to a project: libs/runner/..."""
    return {"libs/runner/module.yml": RUNNER_MODULE_YML, "libs/runner/model/_init.cf": RUNNER_MODEL,
            "libs/runner/plugins/__init__.py": plugin}

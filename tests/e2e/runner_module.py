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


# A module whose handler reads a file of the file store (get_file of the hash its getter uploaded at
# the export) and uploads one (upload_file): `copier::Copy` writes `content` to `path` through the
# file store, and stores the reversed content as a file of its own.
COPIER_PLUGIN = '''\
import hashlib

from inmanta.agent.handler import CRUDHandler, ResourcePurged, provider
from inmanta.resources import PurgeableResource, resource


@resource("copier::Copy", agent="agent", id_attribute="path")
class Copy(PurgeableResource):
    fields = ("path", "hash")

    @staticmethod
    def get_hash(exporter, obj):
        return exporter.upload_file(obj.content)


@provider("copier::Copy", name="copy")
class CopyHandler(CRUDHandler):
    def read_resource(self, ctx, resource):
        try:
            with open(resource.path, "rb") as fd:
                resource.hash = hashlib.sha1(fd.read()).hexdigest()
        except FileNotFoundError:
            raise ResourcePurged()

    def create_resource(self, ctx, resource):
        if not self.stat_file(resource.hash):
            raise Exception("the file store has no %s" % resource.hash)
        content = self.get_file(resource.hash)
        with open(resource.path, "wb") as fd:
            fd.write(content)
        reverse = content[::-1]
        self.upload_file(hashlib.sha1(reverse).hexdigest(), reverse)
        ctx.info("uploaded %(hash)s", hash=hashlib.sha1(reverse).hexdigest())
        ctx.set_created()

    def update_resource(self, ctx, changes, resource):
        self.create_resource(ctx, resource)

    def delete_resource(self, ctx, resource):
        pass
'''
COPIER_MODEL = '''\
entity Copy extends std::PurgeableResource:
  string path
  string content
  string agent = "internal"
end
implement Copy using std::none
'''


def copier_module_files():
    """The copier module's files, relative to a project: libs/copier/..."""
    return {"libs/copier/module.yml": "name: copier\nversion: 1.0.0\nlicense: ASL\n",
            "libs/copier/model/_init.cf": COPIER_MODEL, "libs/copier/plugins/__init__.py": COPIER_PLUGIN}

"""
Runs Pulumi programs under the Python SDK's mocks, one after another in one stack, and prints the
inputs each resource type was declared with, as JSON by type token. Secret inputs keep the SDK's
secret wrapping; the test unwraps them.

    python mocked-examples.py program.py ...
"""
import json
import runpy
import sys

import pulumi

declared = {}


class Mocks(pulumi.runtime.Mocks):
    def new_resource(self, args):
        declared[args.typ] = args.inputs
        return [f"{args.name}-id", args.inputs]

    def call(self, args):
        return {}


pulumi.runtime.set_mocks(Mocks(), preview=False)


@pulumi.runtime.test
def declare_all():
    for program in sys.argv[1:]:
        runpy.run_path(program)


declare_all()
print(json.dumps(declared, sort_keys=True))

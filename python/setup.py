"""Builds the Go library into the package: `go build -buildmode=c-shared` of
the command line's package (cmd/scaledsm) with python/native/capi.go added
by an overlay, so that the Python calls share the command's flags, defaults
and messages. Needs Go (the version go.mod names, or a toolchain that can
fetch it) and a C compiler; nothing from PyPI."""

import json
import os
import shutil
import subprocess
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LIBNAME = "_libscaledsm.so"


def build_library(out):
    """Compiles the shared library to the path out."""
    go = os.environ.get("GO") or shutil.which("go")
    if go is None:
        raise SystemExit("scaledsm: building the package needs Go: install it "
                         "(https://go.dev/dl/) or set GO to the go command")
    if not os.path.exists(os.path.join(ROOT, "go.mod")):
        raise SystemExit("scaledsm: build from the repository's python/ directory "
                         "(go.mod not found in %s)" % ROOT)
    env = dict(os.environ, CGO_ENABLED="1")
    with tempfile.TemporaryDirectory() as tmp:
        overlay = os.path.join(tmp, "overlay.json")
        with open(overlay, "w") as f:
            json.dump({"Replace": {
                os.path.join(ROOT, "cmd", "scaledsm", name):
                    os.path.join(HERE, "native", name)
                for name in ("capi.go", "capi_recommend.go", "capi_predict.go", "capi_background.go")}}, f)
        cmd = [go, "build", "-overlay", overlay, "-tags", "scaledsm_capi",
               "-buildmode=c-shared", "-trimpath", "-ldflags=-s -w",
               "-o", out, "./cmd/scaledsm"]
        print(" ".join(cmd), flush=True)
        subprocess.check_call(cmd, cwd=ROOT, env=env)
    header = os.path.splitext(out)[0] + ".h"
    if os.path.exists(header):
        os.remove(header)


class BuildPy(build_py):
    """build_py that also compiles the Go library into the package."""

    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "scaledsm")
        os.makedirs(target, exist_ok=True)
        build_library(os.path.abspath(os.path.join(target, LIBNAME)))


class BinaryDistribution(Distribution):
    """The wheel holds a compiled library: tag it for the platform."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildPy}, distclass=BinaryDistribution)

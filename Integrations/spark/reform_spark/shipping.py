"""Getting Reform onto the executors: the release bundle as a Spark archive, or a plain binary."""
from __future__ import annotations

import atexit
import glob
import hashlib
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from importlib import resources

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".zip")


@dataclass(frozen=True)
class ShippedReform:
    """How a task finds Reform: the name of an unpacked bundle under SparkFiles, or the path of a
    binary every executor sees (local mode, a shared folder)."""

    name: str
    is_bundle: bool

    def locate(self) -> tuple[str, dict[str, str]]:
        """On an executor: the `reform` executable and the environment to run it with."""
        from pyspark import SparkFiles

        env = dict(os.environ)
        if not self.is_bundle:
            return self.name, env
        root = SparkFiles.get(self.name)
        # The bundle unpacks to reform-VERSION/{bin/reform,lib/,plugins/}.
        found = sorted(glob.glob(os.path.join(root, "bin", "reform")) + glob.glob(os.path.join(root, "*", "bin", "reform")))
        if not found:
            raise FileNotFoundError(f"no bin/reform in the unpacked bundle {root}: is it a reform-VERSION-linux-x86_64.tar.gz?")
        binary = found[0]
        home = os.path.dirname(os.path.dirname(binary))
        lib = os.path.join(home, "lib")
        if os.path.isdir(lib):
            env["LD_LIBRARY_PATH"] = lib + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
        plugins = os.path.join(home, "plugins")
        if os.path.isdir(plugins) and "REFORM_PLUGIN_PATH" not in env:
            env["REFORM_PLUGIN_PATH"] = plugins
        return binary, env


def ship_reform(sc, reform: str) -> ShippedReform:
    """Ships `reform` to every executor: a bundle (`reform-VERSION-linux-x86_64.tar.gz`, the
    documented way: binary, libraries and plugins) with `addArchive`. A plain binary (local mode,
    development builds) is run where it is, beside the libraries it was built with: it must be
    on a path every executor sees."""
    if not os.path.exists(reform):
        raise FileNotFoundError(f"{reform}: no such bundle or binary (build one with scripts/make-bundle.sh -c release)")
    path = os.path.abspath(reform)
    if path.endswith(ARCHIVE_SUFFIXES):
        sc.addArchive(path)
        return ShippedReform(os.path.basename(path), True)
    if not os.access(path, os.X_OK):
        raise PermissionError(f"{reform} is not executable")
    return ShippedReform(path, False)


def ship_package(sc) -> None:
    """Ships this package to the executors' Python (a zip on `addPyFile`), once per context.

    The modules are read through the import system, so the package ships itself wherever it
    was imported from: a folder, or a zip (`spark-submit --py-files reform_spark.zip`)."""
    if getattr(sc, "_reform_spark_shipped", False):
        return
    package = resources.files(__package__)
    modules = {e.name: e.read_bytes() for e in package.iterdir() if e.name.endswith(".py")}
    digest = hashlib.sha256(b"".join(name.encode() + b"\0" + modules[name] for name in sorted(modules))).hexdigest()
    folder = tempfile.mkdtemp(prefix="reform-spark-")
    # Named by its contents: Spark fetches added files by name, and refuses a name it already
    # fetched with other contents (`--py-files reform_spark.zip` is one).
    archive = os.path.join(folder, f"reform_spark-{digest[:16]}.zip")
    with zipfile.ZipFile(archive, "w") as z:
        for name in sorted(modules):
            # A fixed date: the same modules make the same zip, byte for byte.
            z.writestr(zipfile.ZipInfo(f"reform_spark/{name}", date_time=(1980, 1, 1, 0, 0, 0)), modules[name])
    # Executors fetch it when their first task starts: the zip stays until the process ends,
    # and goes with it.
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    sc.addPyFile(archive)
    sc._reform_spark_shipped = True

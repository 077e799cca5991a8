"""Build hook of the torpor Python package: puts libtorpor.so and torpor.h in torpor/_native/.

Where the library comes from, first match wins:

1. ``TORPOR_LIBRARY``: an existing libtorpor.so, copied as it is (no build);
2. ``TORPOR_BUILD_DIR``: a CMake build directory that already has libtorpor.so;
3. a CMake build of the repository this folder sits in, of the library target
   alone, CPU-only unless ``TORPOR_CUDA=1`` (the CUDA backend takes many
   minutes to compile); more CMake options in ``TORPOR_CMAKE_ARGS``. CMake's
   progress goes to pip's log (``pip install -v`` shows it).

The package itself is pure Python over CFFI's ABI mode; the wheel is tagged
for this platform because it carries the library.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent.parent


def cmake_build(build: Path) -> Path:
    """Configure and build the library target in `build`; its libtorpor.so."""
    cuda = os.environ.get("TORPOR_CUDA", "0") == "1"
    extra = os.environ.get("TORPOR_CMAKE_ARGS", "").split()
    print(f"torpor: building libtorpor.so with CMake in {build} ({'with CUDA' if cuda else 'CPU only'}; "
          "TORPOR_LIBRARY or TORPOR_BUILD_DIR reuse an existing build)", file=sys.stderr, flush=True)
    subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                           "-DTORPOR_TESTS=OFF", f"-DTORPOR_CUDA={'ON' if cuda else 'OFF'}", *extra])
    subprocess.check_call(["cmake", "--build", str(build), "--target", "torpor_shared", "--parallel"])
    return build / "libtorpor.so"


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        if os.environ.get("TORPOR_LIBRARY"):
            library = Path(os.environ["TORPOR_LIBRARY"]).resolve()
        elif os.environ.get("TORPOR_BUILD_DIR"):
            library = Path(os.environ["TORPOR_BUILD_DIR"]).resolve() / "libtorpor.so"
        else:
            library = cmake_build(Path(self.build_lib).resolve().parent / "torpor-cmake")
        if not library.exists():
            raise RuntimeError(f"{library} was not built")
        native = Path(self.build_lib) / "torpor" / "_native"
        native.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(library.resolve(), native / "libtorpor.so")
        for header in (ROOT / "include").glob("torpor*.h"):
            shutil.copyfile(header, native / header.name)


class PlatformDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=PlatformDistribution)

"""An installed (not editable) importprof carries what it needs at run time: the spawner's C
source, the bootstrap launcher and hooks, the HTML assets, the workloads and the launcher's
Cargo project. Built as a real wheel, installed into a real venv."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# what a build leaves in its source folder, and what is not importprof's source
NOT_SOURCE = (".git", ".venv", "build", "*.egg-info", "node_modules", "target", "__pycache__", ".hypothesis", ".pytest_cache")


def test_wheel_install_finds_its_package_data(tmp_path, real_python):
    # built from a copy of the working tree: pip builds in the source folder (build/, *.egg-info/),
    # and the checkout's importprof.egg-info is read as installed metadata by the tests running beside this one
    src = tmp_path / "src"
    shutil.copytree(REPO, src, symlinks=True, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(src)],
                   check=True, capture_output=True)
    (wheel,) = wheels.glob("importprof-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([real_python, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True, capture_output=True)
    probe = (
        "import os, profiler, profiler.capture.cargo as c, profiler.capture.bootstrap as b\n"
        "pkg = os.path.dirname(profiler.__file__)\n"
        "need = ['capture/spawner.c', 'bootstrap/launch.py', 'bootstrap/hook_markers.py', 'bootstrap/hook_phases.py',\n"
        "        'render/html_assets/page.js', 'workloads/import_stdlib.txt', 'oxidized_builds/launcher/src/main.rs',\n"
        "        'oxidized_builds/frozen-launcher/launcher.c', 'bootstrap/frozen_packer.py']\n"
        "print([n for n in need if not os.path.isfile(os.path.join(pkg, n))])\n"
        "print(c.project_dir().startswith(pkg), b.LAUNCH.startswith(pkg), pkg.startswith(os.environ['VENV']))\n"
    )
    env = dict(os.environ, VENV=str(venv))
    out = subprocess.run([str(py), "-c", probe], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr
    missing, flags = out.stdout.splitlines()
    assert missing == "[]"
    assert flags == "True True True"
    res = subprocess.run([str(venv / "bin" / "importprof"), "--version"], capture_output=True, text=True, cwd=tmp_path)
    assert res.returncode == 0 and res.stdout.startswith("importprof ")

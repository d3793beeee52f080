"""An installed (not editable) importprof carries what it needs at run time: the spawner's C
source, the bootstrap launcher and hooks, the HTML assets, the workloads and the launcher's
Cargo project. Built as a real wheel, installed into a real venv."""

import os
import subprocess


def test_wheel_install_finds_its_package_data(tmp_path, real_python):
    # the real wheel (the native parser compiled in), built from a copy of the sources once per
    # source hash by tests/_wheel.py: a build writes build/ and *.egg-info/ into its source folder
    from _wheel import built_wheel

    wheel = built_wheel()
    venv = tmp_path / "venv"
    subprocess.run([real_python, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True, capture_output=True)
    probe = (
        "import os, profiler, profiler.capture.cargo as c, profiler.capture.bootstrap as b\n"
        "pkg = os.path.dirname(profiler.__file__)\n"
        "need = ['capture/spawner.c', 'bootstrap/launch.py', 'bootstrap/hook_phases.py',\n"
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

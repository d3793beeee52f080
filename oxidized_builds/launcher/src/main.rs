//! importprof-launcher: CPython (libpython linked dynamically, rpath to its LIBDIR) with the
//! `oxidized_importer` module of the python-oxidized-importer crate built in.
//!
//! Start-up wiring only; every decision is made by importprof's Python code, which writes
//! `importprof-launcher.cfg` (lines `key=value`) next to a copy of this binary:
//!
//! * `home=DIR`: sys.prefix to use (default: the base interpreter this was built for);
//! * `resources=FILE`: packed resources (python-packed-resources format, relative to the
//!   binary's folder unless absolute) that an `OxidizedFinder` indexes (memory-mapped) and
//!   serves from `sys.meta_path[0]`, in front of the builtin, frozen and path importers, with
//!   its path hook first in `sys.path_hooks`. Without it the standard importers run;
//! * `origin=DIR`: the finder's `relative_path_origin` (default: the binary's folder): the
//!   folder whose paths `get_data` (pkgutil.get_data) maps to packed package resources.
//!
//! The command line is python's (`-c`, `-m`, a script, `-X`...). `site` is never imported
//! (PyOxidizer's default). On 3.11+ the finder is installed between the "core" and "main" phases
//! of initialisation, as PyOxidizer's pyembed does, so that even `encodings` can come from it;
//! on 3.8-3.10 after it (as measured when the finder was made through its Python constructor,
//! which imported `os`, not frozen there). The finder itself is made through the crate's Rust
//! API (`PythonResourcesState`, `OxidizedFinder::new_from_module_and_resources`), as pyembed
//! makes it, without pyembed 0.24 (it crashes on 3.11 in `index_interpreter_frozen_modules`).

use oxidized_importer::{ImporterState, OxidizedFinder, PythonResourcesState};
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

const CONFIG_NAME: &str = "importprof-launcher.cfg";

struct LauncherConfig {
    home: Option<String>,
    resources: Option<PathBuf>,
    origin: Option<PathBuf>,
}

fn read_config(exe_dir: &Path) -> LauncherConfig {
    let mut cfg = LauncherConfig { home: None, resources: None, origin: None };
    let default_home = env!("IMPORTPROF_DEFAULT_HOME");
    if !default_home.is_empty() {
        cfg.home = Some(default_home.to_string());
    }
    let text = match std::fs::read_to_string(exe_dir.join(CONFIG_NAME)) {
        Ok(t) => t,
        Err(_) => return cfg,
    };
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match line.split_once('=') {
            Some(("home", v)) => cfg.home = Some(v.to_string()),
            Some(("resources", v)) => cfg.resources = Some(exe_dir.join(v)),
            Some(("origin", v)) => cfg.origin = Some(exe_dir.join(v)),
            _ => {
                eprintln!("importprof-launcher: ignoring config line {:?}", line);
            }
        }
    }
    cfg
}

fn fail(what: &str, status: ffi::PyStatus) -> ! {
    eprintln!("importprof-launcher: {} failed", what);
    unsafe { ffi::Py_ExitStatusException(status) }
}

fn install_finder(resources: &Path, origin: Option<&PathBuf>) -> PyResult<()> {
    // Called with the GIL held by this (the only) thread, after the core phase. The finder is
    // made through the crate's Rust API, as PyOxidizer's pyembed makes it: its Python
    // constructor and `index_file_memory_mapped` turn their path arguments into paths through
    // `os.fsencode`, which imported `os` (and stat, posixpath, genericpath, _collections_abc)
    // into every run, whether the program imports them or not.
    let py = unsafe { Python::assume_gil_acquired() };
    let module = py.import("oxidized_importer")?;
    let mut state = Box::new(PythonResourcesState::new_from_env().map_err(PyValueError::new_err)?);
    if let Some(origin) = origin {
        state.set_origin(origin.clone());
    }
    state.index_path_memory_mapped(resources).map_err(PyValueError::new_err)?;
    let finder = OxidizedFinder::new_from_module_and_resources(py, module, state, None::<fn(&mut ImporterState)>)?;
    let finder = PyCell::new(py, finder)?;
    let sys = py.import("sys")?;
    sys.getattr("meta_path")?.call_method1("insert", (0, finder))?;
    // As PyOxidizer does: a path hook, so that pkgutil.iter_modules() and friends can list the
    // modules of in-memory packages (their __path__ entries are virtual).
    oxidized_importer::install_path_hook(finder, sys)?;
    Ok(())
}

/// The minor version of the libpython actually loaded ("3.10.13 (main, ...").
fn python_minor() -> u32 {
    let version = unsafe { std::ffi::CStr::from_ptr(ffi::Py_GetVersion()) };
    let text = version.to_string_lossy();
    text.split('.').nth(1).and_then(|m| m.parse().ok()).unwrap_or(0)
}

fn main() {
    let exe = std::env::current_exe().expect("cannot locate own executable");
    let exe_dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    let cfg = read_config(&exe_dir);

    let args: Vec<CString> =
        std::env::args_os().map(|a| CString::new(a.as_bytes()).expect("NUL in argument")).collect();
    let mut argv: Vec<*const std::os::raw::c_char> = args.iter().map(|a| a.as_ptr()).collect();

    unsafe {
        if ffi::PyImport_AppendInittab(
            c"oxidized_importer".as_ptr() as *const _,
            Some(oxidized_importer::PyInit_oxidized_importer),
        ) != 0
        {
            eprintln!("importprof-launcher: cannot register oxidized_importer");
            std::process::exit(3);
        }
        let mut config = std::mem::MaybeUninit::<ffi::PyConfig>::uninit();
        ffi::PyConfig_InitPythonConfig(config.as_mut_ptr());
        let config = config.as_mut_ptr();
        (*config).site_import = 0;
        (*config).parse_argv = 1;
        if let Some(home) = &cfg.home {
            let home = CString::new(home.as_bytes()).expect("NUL in home");
            let status = ffi::PyConfig_SetBytesString(config, &mut (*config).home, home.as_ptr());
            if ffi::PyStatus_Exception(status) != 0 {
                fail("setting home", status);
            }
        }
        let status = ffi::PyConfig_SetBytesArgv(config, argv.len() as _, argv.as_mut_ptr());
        if ffi::PyStatus_Exception(status) != 0 {
            fail("parsing arguments", status);
        }
        // 3.11+: the finder comes in between the core and main phases; before 3.11 only
        // builtin and importlib's modules import after the core phase, so the finder is
        // installed after the whole initialisation (the few modules that imports, encodings and
        // io among them, stay files).
        let two_phase = cfg.resources.is_some() && python_minor() >= 11;
        if two_phase {
            (*config)._init_main = 0;
        }
        let status = ffi::Py_InitializeFromConfig(config);
        ffi::PyConfig_Clear(config);
        if ffi::PyStatus_Exception(status) != 0 {
            fail("initialisation", status);
        }
        if let Some(resources) = &cfg.resources {
            if let Err(err) = install_finder(resources, cfg.origin.as_ref()) {
                let py = Python::assume_gil_acquired();
                err.print(py);
                eprintln!("importprof-launcher: cannot index packed resources {}", resources.display());
                std::process::exit(3);
            }
            if two_phase {
                let status = ffi::_Py_InitializeMain();
                if ffi::PyStatus_Exception(status) != 0 {
                    fail("initialisation (main phase)", status);
                }
            }
        }
        std::process::exit(ffi::Py_RunMain());
    }
}

// Link the interpreter's own libpython (pyo3 finds it through PYO3_PYTHON) and record its LIBDIR
// as an rpath, else the dynamic loader may pick another libpython3.11.so (e.g. Debian's).
// The default home (sys.prefix of the base interpreter) is baked in too; the config file may
// override it. Both come from importprof's build driver (profiler/capture/cargo.py).
fn main() {
    println!("cargo:rerun-if-env-changed=IMPORTPROF_PYTHON_LIBDIR");
    println!("cargo:rerun-if-env-changed=IMPORTPROF_PYTHON_HOME");
    if let Ok(libdir) = std::env::var("IMPORTPROF_PYTHON_LIBDIR") {
        if !libdir.is_empty() {
            println!("cargo:rustc-link-arg=-Wl,-rpath,{}", libdir);
            println!("cargo:rustc-link-search=native={}", libdir);
        }
    }
    let home = std::env::var("IMPORTPROF_PYTHON_HOME").unwrap_or_default();
    println!("cargo:rustc-env=IMPORTPROF_DEFAULT_HOME={}", home);
}

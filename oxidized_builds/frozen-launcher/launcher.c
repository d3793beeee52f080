/* importprof-frozen: CPython (its own libpython, linked dynamically) with a frozen-modules table
 * built from a target's bytecode, so that CPython's own FrozenImporter serves those modules
 * from memory (the mechanism CPython 3.11+ uses for its start-up modules).
 *
 * Start-up wiring only; what is frozen is decided by importprof (profiler/analysis/frozen.py),
 * and the bytecode is marshalled by the target interpreter itself
 * (profiler/bootstrap/frozen_packer.py) into one blob, linked into this executable by
 * importprof (profiler/capture/frozen.py):
 *
 *   blob  := "IPFROZEN" u32:count entry*        (little-endian)
 *   entry := u32:name_len name NUL u8:is_package u32:code_len code   (code: marshal.dumps(code))
 *
 * The symbols importprof_frozen_blob / importprof_frozen_blob_end delimit it (an .incbin).
 * IMPORTPROF_HOME (a -D at compile time) is sys.prefix of the interpreter this was built for.
 *
 * The table keeps CPython's own entries first (3.8-3.10 keep importlib's bootstrap there), then
 * the target's. The `_frozen` struct differs: 3.8-3.10 flag a package by a negative size,
 * 3.11+ have an is_package field (3.11/3.12 also a get_code pointer, NULL here).
 * The command line is python's: Py_RunMain runs -c / -m / a script as python does.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const unsigned char importprof_frozen_blob[];
extern const unsigned char importprof_frozen_blob_end[];

#ifndef IMPORTPROF_HOME
#define IMPORTPROF_HOME ""
#endif

static uint32_t read_u32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void die(const char *what) {
    fprintf(stderr, "importprof-frozen: %s\n", what);
    exit(3);
}

/* Build the table: CPython's entries, then the blob's, then the zero sentinel. */
static struct _frozen *build_table(void) {
    const unsigned char *p = importprof_frozen_blob;
    const unsigned char *end = importprof_frozen_blob_end;
    if (end - p < 12 || memcmp(p, "IPFROZEN", 8) != 0)
        die("no frozen-modules blob in this executable");
    uint32_t count = read_u32(p + 8);
    p += 12;
    size_t existing = 0;
    if (PyImport_FrozenModules != NULL)
        while (PyImport_FrozenModules[existing].name != NULL)
            existing++;
    struct _frozen *table = calloc(existing + count + 1, sizeof(struct _frozen));
    if (table == NULL)
        die("out of memory");
    if (existing)
        memcpy(table, PyImport_FrozenModules, existing * sizeof(struct _frozen));
    for (uint32_t i = 0; i < count; i++) {
        if (end - p < 4) die("truncated blob");
        uint32_t name_len = read_u32(p);
        p += 4;
        if ((size_t)(end - p) < (size_t)name_len + 1 + 1 + 4) die("truncated blob");
        const char *name = (const char *)p;
        p += name_len + 1; /* the NUL */
        int is_package = *p++;
        uint32_t code_len = read_u32(p);
        p += 4;
        if ((size_t)(end - p) < code_len || code_len == 0 || code_len > INT32_MAX) die("truncated blob");
        struct _frozen *f = &table[existing + i];
        f->name = name;
        f->code = p;
#if PY_VERSION_HEX >= 0x030B0000
        f->size = (int)code_len;
        f->is_package = is_package;
#else
        f->size = is_package ? -(int)code_len : (int)code_len;
#endif
        p += code_len;
    }
    return table;
}

static void fail(const char *what, PyStatus status, PyConfig *config) {
    PyConfig_Clear(config);
    fprintf(stderr, "importprof-frozen: %s failed\n", what);
    Py_ExitStatusException(status);
}

int main(int argc, char **argv) {
    PyImport_FrozenModules = build_table();

    PyConfig config;
    PyConfig_InitPythonConfig(&config);
    PyStatus status;
    if (IMPORTPROF_HOME[0] != '\0') {
        status = PyConfig_SetBytesString(&config, &config.home, IMPORTPROF_HOME);
        if (PyStatus_Exception(status)) fail("setting home", status, &config);
    }
    status = PyConfig_SetBytesArgv(&config, argc, argv);
    if (PyStatus_Exception(status)) fail("parsing arguments", status, &config);
    status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status)) {
        if (PyStatus_IsExit(status)) return status.exitcode;
        fprintf(stderr, "importprof-frozen: initialisation failed\n");
        Py_ExitStatusException(status);
    }
    return Py_RunMain();
}

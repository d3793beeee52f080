"""Reading the files users hand to importprof (saved logs, saved JSON documents): every way they
can be wrong ends as one BadInput line naming the file. One room per concern, each importing
only those above it in this list (this file imports none of them):

- bounded.py          a file or standard input, whole or a piece at a time, within the input limit
- strict_json.py      strict JSON (no NaN/Infinity, no number too large): parse_json, read_json
- schema_compiler.py  each published schema (profiler/schemas/<kind>.json) compiled to plain
                      checks: conforms, item_check (a fast yes/no)
- schema_problems.py  what jsonschema finds wrong with a refused document, said as
                      `modules[3].self_us: expected integer (got a string)`: first_problem
- imports_rules.py    what the imports report's schema cannot say (a module's parent exists)
- documents.py        a saved document read whole and checked: read_document, check_document
- layout.py           a saved document as the lines importprof writes, whatever its layout
                      (compact and one-line documents read a value at a time)
- line_reader.py      a saved document read a line at a time, validated as it is read
- saved_imports.py    a saved imports report read back into the column form (show, diff,
                      why --report, report --from)
"""

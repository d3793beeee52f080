"""importprof: a start-up and import-time profiler for Python.

This module must stay import-free: `importprof --version` is measured against a bare
`python -c pass` and every import here is paid by every command.
"""

__version__ = "0.1.0"

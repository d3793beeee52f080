"""The JSON schema of each importprof document kind (`importprof.<kind>/1` -> <kind>.json),
checked by profiler.inputs when a saved document is read; published in the README."""

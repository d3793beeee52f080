"""Composition above the pipelines: the workflows that run other commands' workflows and put
their reports together (`report`, `doctor`, `lazy`). They may import profiler.workflows (and each
other); no workflow imports them, so each single-command pipeline stays readable on its own."""

"""The `hello` workload: start, print a line, exit."""
print("hello, world")

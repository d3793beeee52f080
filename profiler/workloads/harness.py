"""The `harness` workload's driver: launch one command N times in a row, each to completion
(like Mercurial's test harness, which starts tens of thousands of `hg` processes).

    python -S -E harness.py N [NAME=VALUE ...] -- COMMAND [ARGS...]

NAME=VALUE pairs are added to the command's environment. This driver is measured with every
variant, so it imports nothing that a bare `python -S` has not already imported (posix, not os;
no json): its own cost stays a few milliseconds, the same for every variant. stdout of the
launched command is discarded after the first launch, whose output is printed once (so every
variant can be checked to print the same). The CPU time of this process includes its waited-for
children's, which is what is measured.
"""
import posix
import sys


def main(argv):
    n = int(argv[0])
    sep = argv.index("--")
    env = dict(posix.environ)  # bytes keys and values
    for pair in argv[1:sep]:
        name, _, value = pair.partition("=")
        env[name.encode("utf-8", "surrogateescape")] = value.encode("utf-8", "surrogateescape")
    cmd = argv[sep + 1:]
    first = None
    for i in range(n):
        r, w = posix.pipe()
        pid = posix.posix_spawn(cmd[0], cmd, env, file_actions=[(posix.POSIX_SPAWN_DUP2, w, 1), (posix.POSIX_SPAWN_CLOSE, r)])
        posix.close(w)
        chunks = []
        while True:
            b = posix.read(r, 65536)
            if not b:
                break
            chunks.append(b)
        posix.close(r)
        _, status = posix.waitpid(pid, 0)
        code = posix.waitstatus_to_exitcode(status)
        if code != 0:
            sys.stderr.write(f"harness: launch {i + 1} of {cmd[0]} exited {code}\n")
            return 1
        if first is None:
            first = b"".join(chunks)
    sys.stdout.buffer.write(first or b"")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

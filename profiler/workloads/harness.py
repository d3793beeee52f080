"""The `harness` workload's driver: launch one command N times in a row, each to completion
(like Mercurial's test harness, which starts tens of thousands of `hg` processes).

    python -S -E harness.py N ARGV_JSON ENV_JSON

Standard library only. stdout of the launched command is discarded after the first launch, whose
output is printed once (so every variant can be checked to print the same). The CPU time of this
process includes its waited-for children's, which is what is measured.
"""
import json
import os
import sys


def main(argv):
    n, cmd, extra_env = int(argv[0]), json.loads(argv[1]), json.loads(argv[2])
    env = dict(os.environ)
    env.update(extra_env)
    first = None
    for i in range(n):
        r, w = os.pipe()
        pid = os.posix_spawn(cmd[0], cmd, env, file_actions=[(os.POSIX_SPAWN_DUP2, w, 1), (os.POSIX_SPAWN_CLOSE, r)])
        os.close(w)
        chunks = []
        while True:
            b = os.read(r, 65536)
            if not b:
                break
            chunks.append(b)
        os.close(r)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            sys.stderr.write(f"harness: launch {i + 1} of {cmd[0]} exited {code}\n")
            return 1
        if first is None:
            first = b"".join(chunks)
    sys.stdout.buffer.write(first or b"")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

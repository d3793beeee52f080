/* importprof's measuring spawner: fork+exec one command, wait for it, report its rusage.
 *
 * Why a separate tiny process: Linux accounts a child's peak RSS (ru_maxrss) as at least the
 * RSS of the process it was forked from at exec time. Spawned from importprof (a Python
 * process of ~30 MiB) every child would report >= 30 MiB. Forked from this ~1 MiB program,
 * the peak RSS is the command's own, as with hyperfine.
 *
 * usage: importprof-spawner REPORT_FD /abs/path/to/exe [args...]
 * On REPORT_FD it writes one line:
 *   "<wall_ns> <utime_us> <stime_us> <maxrss_kib> <exit_code> <exec_errno>"
 * exit_code is the child's exit status, or -signal when it was killed.
 * stdin/stdout/stderr are inherited as given. No shell is involved.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
static volatile int exec_errno = 0;

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s REPORT_FD EXE [ARGS...]\n", argv[0]);
        return 125;
    }
    int report_fd = atoi(argv[1]);
    if (fcntl(report_fd, F_SETFD, FD_CLOEXEC) == -1) return 125;

    struct timespec t0, t1;
    struct rusage ru;
    int status = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = vfork();
    if (pid == 0) {
        execve(argv[2], &argv[2], environ);
        exec_errno = errno;
        _exit(127);
    }
    if (pid < 0) return 125;
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) return 125;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long long wall_ns = (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
    long long ut = (long long)ru.ru_utime.tv_sec * 1000000LL + ru.ru_utime.tv_usec;
    long long st = (long long)ru.ru_stime.tv_sec * 1000000LL + ru.ru_stime.tv_usec;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : (WIFSIGNALED(status) ? -WTERMSIG(status) : -1);
    dprintf(report_fd, "%lld %lld %lld %ld %d %d\n", wall_ns, ut, st, ru.ru_maxrss, code, (int)exec_errno);
    return 0;
}

/* importprof's measuring spawner: fork+exec commands, wait for each, report its rusage.
 *
 * Why a separate tiny process: Linux accounts a child's peak RSS (ru_maxrss) as at least the
 * RSS of the process it was forked from at exec time. Spawned from importprof (a Python
 * process of ~30 MiB) every child would report >= 30 MiB. Forked from this ~1 MiB program,
 * the peak RSS is the command's own, as with hyperfine.
 *
 * It runs as a server for a whole benchmark (a process started per run would itself be cold
 * and add its start to every measurement):
 *   stdin   requests: a native uint32 length N, then N bytes: the argv strings, each NUL
 *           terminated, an empty string, then the environment strings ("K=V"), each NUL
 *           terminated. argv[0] must be an absolute path (no PATH search, no shell).
 *   stdout  one line per request:
 *           "<wall_ns> <utime_us> <stime_us> <maxrss_kib> <exit_code> <exec_errno>\n"
 *           exit_code is the exit status, or -signal when the command was killed.
 *   stderr  inherited by every command (importprof keeps its tail to explain a failure).
 * Each command gets /dev/null as stdin and stdout. The server exits at end of input.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int exec_errno = 0;

static int read_full(int fd, void *buf, size_t n) {
    char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r == 0) return 0;
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += r;
        n -= (size_t)r;
    }
    return 1;
}

static int split(char *buf, size_t len, char ***argv_out, char ***env_out) {
    size_t count = 0;
    for (size_t i = 0; i < len; i++) count += buf[i] == '\0';
    char **all = calloc(count + 2, sizeof(char *));
    if (!all) return -1;
    char **argv = all, **env = NULL;
    size_t k = 0;
    char *p = buf, *end = buf + len;
    while (p < end) {
        if (*p == '\0' && env == NULL) { /* the empty string between argv and env */
            all[k++] = NULL;
            env = &all[k];
            p++;
            continue;
        }
        all[k++] = p;
        p += strlen(p) + 1;
    }
    all[k] = NULL;
    if (env == NULL) env = &all[k];
    *argv_out = argv;
    *env_out = env;
    return argv[0] ? 0 : -1;
}

int main(void) {
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull < 0) return 125;
    for (;;) {
        uint32_t len;
        int r = read_full(0, &len, sizeof len);
        if (r == 0) return 0;
        if (r < 0 || len == 0 || len > (64u << 20)) return 125;
        char *buf = malloc(len);
        if (!buf || read_full(0, buf, len) != 1) return 125;
        char **argv, **env;
        if (split(buf, len, &argv, &env) != 0) return 125;

        struct timespec t0, t1;
        struct rusage ru;
        int status = 0;
        exec_errno = 0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        pid_t pid = vfork();
        if (pid == 0) {
            if (dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0) { exec_errno = errno; _exit(127); }
            execve(argv[0], argv, env);
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
        char line[160];
        int n = snprintf(line, sizeof line, "%lld %lld %lld %ld %d %d\n", wall_ns, ut, st, ru.ru_maxrss, code, (int)exec_errno);
        if (write(1, line, (size_t)n) != n) return 125;
        free(argv);
        free(buf);
    }
}

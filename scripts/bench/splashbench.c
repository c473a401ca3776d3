/*
 * splashbench: a small epoll client of the splashd socket protocol for whole-process benchmarks.
 * It is built by scripts/bench.sh with `cc -O2`; apart from polling for the socket to appear at a
 * cold start (every 100 us), it never sleeps to wait for the daemon (every wait is a blocking read
 * or epoll_wait), so it is not the bottleneck of what it measures.
 *
 *   splashbench cold SOCK N -- SPLASHD ARGS...   exec splashd -> hello received, and -> the first
 *                                                state (subscribe sent after hello), N times
 *   splashbench ping SOCK N                      ping round trips on one persistent connection
 *   splashbench launches SOCK N [TSFILE]         relaunch -> dismissing (and plugin exit -> dismissing
 *                                                when TSFILE holds the plugin's CLOCK_REALTIME ns)
 *   splashbench fanout SOCK SUBSCRIBERS ROUNDS STEP   one state change -> received by every subscriber
 *   splashbench exec NAME N -- PROGRAM ARGS...   fork + exec -> exit, N times: the cold start's reference
 *
 * Output: one line per figure, `name: median=.. p90=.. p99=.. min=.. max=.. n=..` in microseconds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what) { perror(what); exit(2); }

static int64_t now_ns(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
static int64_t mono(void) { return now_ns(CLOCK_MONOTONIC); }

static int cmp64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Prints percentiles of `n` samples in nanoseconds, as microseconds. */
static void report(const char *name, int64_t *v, size_t n) {
    if (n == 0) { printf("%s: no samples\n", name); return; }
    qsort(v, n, sizeof *v, cmp64);
#define PCT(p) ((double)v[(size_t)((p) * (double)(n - 1) + 0.5)] / 1000.0)
    printf("%s: median=%.1f p90=%.1f p99=%.1f min=%.1f max=%.1f n=%zu (us)\n", name, PCT(0.5), PCT(0.9),
           PCT(0.99), (double)v[0] / 1000.0, (double)v[n - 1] / 1000.0, n);
    fflush(stdout);
}

static int try_connect(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket");
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) { close(fd); return -1; }
    return fd;
}

static int must_connect(const char *path) {
    int fd = try_connect(path);
    if (fd < 0) die("connect");
    return fd;
}

/* A blocking line reader. */
typedef struct { int fd; char buf[1 << 16]; size_t len; } reader;

/* Returns the next line (NUL-terminated, without '\n'), valid until the next call. */
static char *read_line(reader *r) {
    static char line[1 << 16];
    for (;;) {
        char *nl = memchr(r->buf, '\n', r->len);
        if (nl) {
            size_t n = (size_t)(nl - r->buf);
            memcpy(line, r->buf, n);
            line[n] = 0;
            memmove(r->buf, nl + 1, r->len - n - 1);
            r->len -= n + 1;
            return line;
        }
        if (r->len == sizeof r->buf) { fprintf(stderr, "line too long\n"); exit(2); }
        ssize_t got = read(r->fd, r->buf + r->len, sizeof r->buf - r->len);
        if (got <= 0) { fprintf(stderr, "connection closed\n"); exit(2); }
        r->len += (size_t)got;
    }
}

static void send_line(int fd, const char *text) {
    size_t n = strlen(text);
    if (write(fd, text, n) != (ssize_t)n) die("write");
}

static int is_state(const char *line, const char *phase) {
    if (!strstr(line, "\"type\":\"state\"")) return 0;
    if (!phase) return 1;
    char want[64];
    snprintf(want, sizeof want, "\"phase\":\"%s\"", phase);
    return strstr(line, want) != NULL;
}

/* Reads lines until a state in `phase`; returns the monotonic receipt time. */
static int64_t wait_phase(reader *r, const char *phase) {
    for (;;) {
        char *line = read_line(r);
        if (is_state(line, phase)) return mono();
        if (strstr(line, "\"phase\":\"error\"")) { fprintf(stderr, "launch failed: %s\n", line); exit(3); }
    }
}

static void expect_ok(reader *r) {
    char *line = read_line(r);
    if (!strstr(line, "\"type\":\"ok\"")) { fprintf(stderr, "expected ok, got %s\n", line); exit(3); }
}

/* fork + exec of argv with stderr (and stdout too when `quiet_stdout`) on /dev/null. */
static pid_t spawn_quiet(char **argv, int quiet_stdout) {
    pid_t pid = fork();
    if (pid < 0) die("fork");
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (quiet_stdout) dup2(devnull, 1);
        dup2(devnull, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

/* ---- cold: exec splashd -> hello, and -> the first state a renderer can draw ---- */
static int cold(const char *sock, int n, char **argv) {
    int64_t *samples = calloc((size_t)n, sizeof *samples);
    int64_t *states = calloc((size_t)n, sizeof *states);
    for (int i = 0; i < n; i++) {
        unlink(sock);
        int64_t t0 = mono();
        pid_t pid = spawn_quiet(argv, 0);
        int fd;
        /* Poll connect every 100 us: the daemon's socket appears when it listens. Not a busy spin,
         * which on a small machine takes a core from the daemon it is timing. */
        while ((fd = try_connect(sock)) < 0) {
            int status;
            if (waitpid(pid, &status, WNOHANG) == pid) { fprintf(stderr, "splashd exited early\n"); return 3; }
            struct timespec pause = {0, 100000};
            nanosleep(&pause, NULL);
        }
        reader *r = calloc(1, sizeof *r);
        r->fd = fd;
        char *line = read_line(r);
        int64_t t1 = mono();
        if (!strstr(line, "\"type\":\"hello\"")) { fprintf(stderr, "expected hello: %s\n", line); return 3; }
        samples[i] = t1 - t0;
        send_line(fd, "{\"cmd\":\"subscribe\"}\n");
        do { line = read_line(r); } while (!strstr(line, "\"type\":\"state\""));
        states[i] = mono() - t0;
        close(fd);
        free(r);
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
    }
    report("cold start (exec -> hello)", samples, (size_t)n);
    report("cold start (exec -> first state)", states, (size_t)n);
    return 0;
}

/* ---- exec: fork + exec -> exit of another program, as a reference for the cold start ---- */
static int exec_times(const char *name, int n, char **argv) {
    int64_t *samples = calloc((size_t)n, sizeof *samples);
    for (int i = 0; i < n; i++) {
        int64_t t0 = mono();
        pid_t pid = spawn_quiet(argv, 1);
        int status;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "%s did not exit cleanly\n", argv[0]);
            return 3;
        }
        samples[i] = mono() - t0;
    }
    report(name, samples, (size_t)n);
    return 0;
}

/* ---- ping ---- */
static int ping(const char *sock, int n) {
    reader *r = calloc(1, sizeof *r);
    r->fd = must_connect(sock);
    read_line(r); /* hello */
    int64_t *samples = calloc((size_t)n, sizeof *samples);
    for (int i = -1000; i < n; i++) { /* 1000 warm-up round trips */
        int64_t t0 = mono();
        send_line(r->fd, "{\"cmd\":\"ping\"}\n");
        expect_ok(r);
        if (i >= 0) samples[i] = mono() - t0;
    }
    report("ping round trip", samples, (size_t)n);
    return 0;
}

/* ---- launches: relaunch -> dismissing; plugin exit -> dismissing ---- */
static int launches(const char *sock, int n, const char *tsfile) {
    reader *sub = calloc(1, sizeof *sub), *ctl = calloc(1, sizeof *ctl);
    sub->fd = must_connect(sock);
    ctl->fd = must_connect(sock);
    read_line(sub);
    read_line(ctl);
    send_line(sub->fd, "{\"cmd\":\"subscribe\"}\n");
    expect_ok(sub);
    wait_phase(sub, "finished"); /* the first launch, started by the daemon itself */
    int64_t *launch = calloc((size_t)n, sizeof *launch), *gate = calloc((size_t)n, sizeof *gate);
    size_t gates = 0;
    for (int i = 0; i < n; i++) {
        int64_t t0 = mono();
        send_line(ctl->fd, "{\"cmd\":\"relaunch\"}\n");
        /* The subscriber sees loading, then dismissing. */
        wait_phase(sub, "dismissing");
        int64_t t1 = mono(), wall = now_ns(CLOCK_REALTIME);
        launch[i] = t1 - t0;
        if (tsfile) {
            FILE *f = fopen(tsfile, "r");
            long long exited = 0;
            if (f && fscanf(f, "%lld", &exited) == 1 && exited > 0) gate[gates++] = wall - exited;
            if (f) fclose(f);
        }
        expect_ok(ctl);
        wait_phase(sub, "finished");
    }
    report("launch (relaunch sent -> dismissing received)", launch, (size_t)n);
    if (tsfile) report("gate (plugin exit -> dismissing received)", gate, gates);
    return 0;
}

/* ---- fanout ---- */
typedef struct { int fd; size_t len; int64_t got; int done; char buf[4096]; } conn;

static int fanout(const char *sock, int subscribers, int rounds, const char *step) {
    int ep = epoll_create1(EPOLL_CLOEXEC);
    conn *c = calloc((size_t)subscribers, sizeof *c);
    for (int i = 0; i < subscribers; i++) {
        c[i].fd = must_connect(sock);
        send_line(c[i].fd, "{\"cmd\":\"subscribe\"}\n");
    }
    reader *ctl = calloc(1, sizeof *ctl);
    ctl->fd = must_connect(sock);
    read_line(ctl);
    for (int i = 0; i < subscribers; i++) {
        fcntl(c[i].fd, F_SETFL, O_NONBLOCK);
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, c[i].fd, &ev) != 0) die("epoll_ctl");
    }
    int64_t *all = calloc((size_t)subscribers * (size_t)rounds, sizeof *all);
    int64_t *last = calloc((size_t)rounds, sizeof *last);
    size_t count = 0;
    struct epoll_event events[256];
    /* Round -1 is the warm-up: finish the current launch, drain until every subscriber saw it.
       Then alternate: relaunch (-> loading), complete STEP (-> dismissing -> finished). The figure
       is the first state of the new phase each subscriber receives. */
    for (int round = -1; round < rounds; round++) {
        int relaunch = round >= 0 && round % 2 == 0;
        const char *target = relaunch ? "loading" : "finished";
        char command[256];
        if (relaunch) snprintf(command, sizeof command, "{\"cmd\":\"relaunch\"}\n");
        else snprintf(command, sizeof command, "{\"cmd\":\"complete\",\"step\":\"%s\"}\n", step);
        for (int i = 0; i < subscribers; i++) { c[i].got = 0; c[i].done = 0; }
        int64_t t0 = mono();
        send_line(ctl->fd, command);
        int done = 0;
        while (done < subscribers) {
            int k = epoll_wait(ep, events, 256, 10000);
            if (k <= 0) { fprintf(stderr, "fanout: timeout, %d of %d done\n", done, subscribers); return 3; }
            int64_t t = mono();
            for (int e = 0; e < k; e++) {
                conn *s = &c[events[e].data.u32];
                for (;;) {
                    ssize_t got = read(s->fd, s->buf + s->len, sizeof s->buf - s->len - 1);
                    if (got < 0 && errno == EAGAIN) break;
                    if (got <= 0) { fprintf(stderr, "fanout: subscriber closed\n"); return 3; }
                    s->len += (size_t)got;
                    char *start = s->buf, *nl;
                    while ((nl = memchr(start, '\n', s->len - (size_t)(start - s->buf)))) {
                        *nl = 0;
                        int changed = relaunch ? is_state(start, "loading")
                                               : (is_state(start, "dismissing") || is_state(start, "finished"));
                        if (changed && !s->got) s->got = t;
                        if (is_state(start, target) && !s->done) { s->done = 1; done++; }
                        start = nl + 1;
                    }
                    s->len -= (size_t)(start - s->buf);
                    memmove(s->buf, start, s->len);
                }
            }
        }
        char *reply = read_line(ctl);
        if (round >= 0 && !strstr(reply, "\"type\":\"ok\"")) { fprintf(stderr, "fanout: %s\n", reply); return 3; }
        if (round >= 0) {
            int64_t worst = 0;
            for (int i = 0; i < subscribers; i++) {
                all[count++] = c[i].got - t0;
                if (c[i].got - t0 > worst) worst = c[i].got - t0;
            }
            last[round] = worst;
        }
    }
    char name[128];
    snprintf(name, sizeof name, "fan-out (command sent -> first new state, each of %d subscribers)", subscribers);
    report(name, all, count);
    snprintf(name, sizeof name, "fan-out (command sent -> the last of %d subscribers has it)", subscribers);
    report(name, last, (size_t)rounds);
    return 0;
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    if (argc >= 6 && strcmp(argv[1], "cold") == 0 && strcmp(argv[4], "--") == 0) return cold(argv[2], atoi(argv[3]), argv + 5);
    if (argc >= 6 && strcmp(argv[1], "exec") == 0 && strcmp(argv[4], "--") == 0) return exec_times(argv[2], atoi(argv[3]), argv + 5);
    if (argc == 4 && strcmp(argv[1], "ping") == 0) return ping(argv[2], atoi(argv[3]));
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "launches") == 0) return launches(argv[2], atoi(argv[3]), argc == 5 ? argv[4] : NULL);
    if (argc == 6 && strcmp(argv[1], "fanout") == 0) return fanout(argv[2], atoi(argv[3]), atoi(argv[4]), argv[5]);
    fprintf(stderr, "usage: see the comment at the top of splashbench.c\n");
    return 64;
}

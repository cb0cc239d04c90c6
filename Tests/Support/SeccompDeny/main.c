// seccomp-deny ERRNO -- PROGRAM [ARGUMENT...]
//
// Runs PROGRAM under a seccomp filter that makes openat2(2) fail with ERRNO (EPERM or ENOSYS), as some container
// runtimes do and as kernels before 5.6 do. The end-to-end tests use it to run photodrop's fallback path (resolving
// names component by component with O_NOFOLLOW) for real, instead of pretending that openat2 is missing.
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define PHOTODROP_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define PHOTODROP_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "add this architecture's AUDIT_ARCH value"
#endif

int main(int argc, char **argv) {
    if (argc < 4 || strcmp(argv[2], "--") != 0) {
        fprintf(stderr, "usage: seccomp-deny EPERM|ENOSYS -- PROGRAM [ARGUMENT...]\n");
        return 2;
    }
    int code;
    if (strcmp(argv[1], "EPERM") == 0) {
        code = EPERM;
    } else if (strcmp(argv[1], "ENOSYS") == 0) {
        code = ENOSYS;
    } else {
        fprintf(stderr, "seccomp-deny: unknown errno %s (EPERM or ENOSYS)\n", argv[1]);
        return 2;
    }
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PHOTODROP_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (code & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = {.len = sizeof filter / sizeof filter[0], .filter = filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        perror("seccomp-deny: PR_SET_NO_NEW_PRIVS");
        return 2;
    }
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
        perror("seccomp-deny: PR_SET_SECCOMP");
        return 2;
    }
    execvp(argv[3], argv + 3);
    perror("seccomp-deny: exec");
    return 127;
}

#ifndef PHOTODROP_CLINUX_H
#define PHOTODROP_CLINUX_H
// Linux system calls and constants that Swift's Glibc module does not export: they are declared by glibc only under
// _GNU_SOURCE (renameat2, copy_file_range, syncfs, O_NOATIME, O_PATH, F_SETLEASE), have no glibc wrapper at all
// (openat2, glibc 2.36), or would need the variadic syscall(). CLinux.c is compiled with _GNU_SOURCE; this header
// declares plain functions and constants only, so that it does not depend on how the Glibc module was built.
#include <stdint.h>


/// O_NOATIME, O_PATH, O_DIRECTORY, O_NOFOLLOW, O_CLOEXEC, O_TMPFILE.
extern const int32_t photodrop_O_NOATIME;
extern const int32_t photodrop_O_PATH;
extern const int32_t photodrop_O_TMPFILE;
/// RESOLVE_BENEATH, RESOLVE_NO_SYMLINKS, RESOLVE_NO_MAGICLINKS, RESOLVE_NO_XDEV (linux/openat2.h).
extern const uint64_t photodrop_RESOLVE_BENEATH;
extern const uint64_t photodrop_RESOLVE_NO_SYMLINKS;
extern const uint64_t photodrop_RESOLVE_NO_MAGICLINKS;
/// RENAME_NOREPLACE, RENAME_EXCHANGE (renameat2).
extern const uint32_t photodrop_RENAME_NOREPLACE;
extern const uint32_t photodrop_RENAME_EXCHANGE;
/// F_SETLEASE, F_GETLEASE.
extern const int32_t photodrop_F_SETLEASE;
/// SEEK_DATA, SEEK_HOLE (lseek on files with holes).
extern const int32_t photodrop_SEEK_DATA;
extern const int32_t photodrop_SEEK_HOLE;
/// FICLONE (linux/fs.h): a reflink of a whole file.
extern const unsigned long photodrop_FICLONE;

/// statfs(2)'s f_type of the file system holding `path` (its magic number: 0x6969 NFS, 0xFF534D42 CIFS …) in `type`:
/// 0, or -1 and errno.
int photodrop_statfs_type(const char *path, unsigned long *type);

/// openat2(2) through syscall(SYS_openat2): -1 and errno on failure (ENOSYS on kernels before 5.6; seccomp filters
/// may answer EPERM).
int photodrop_openat2(int dirfd, const char *path, uint64_t flags, uint64_t mode, uint64_t resolve);
/// renameat2(2).
int photodrop_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, uint32_t flags);
/// copy_file_range(2) from the files' current offsets.
long photodrop_copy_file_range(int fd_in, int fd_out, unsigned long length);
/// syncfs(2).
int photodrop_syncfs(int fd);
/// fcntl(fd, F_SETLEASE, type) with F_RDLCK, F_WRLCK or F_UNLCK.
int photodrop_set_lease(int fd, int type);
/// Whether the calling thread's effective capability set holds `capability` (CAP_CHOWN = 0, CAP_FOWNER = 3,
/// CAP_DAC_OVERRIDE = 1): 1 yes, 0 no, -1 and errno on failure (capget through syscall).
int photodrop_has_effective_capability(int capability);

/// What statx(2) reports, in plain fields (glibc's `struct statx` is declared only under _GNU_SOURCE). `mask` says which
/// of the optional fields the file system filled (STATX_BTIME for `birth_*`).
typedef struct {
    uint32_t mask;
    uint32_t mode;
    uint32_t nlink;
    uint32_t uid;
    uint32_t gid;
    uint64_t ino;
    uint64_t size;
    uint64_t blocks;
    uint64_t attributes;
    uint32_t dev_major;
    uint32_t dev_minor;
    int64_t birth_sec;
    uint32_t birth_nsec;
    int64_t modification_sec;
    uint32_t modification_nsec;
    int64_t change_sec;
    uint32_t change_nsec;
} photodrop_statx_result;
/// STATX_BASIC_STATS, STATX_BTIME; AT_EMPTY_PATH, AT_STATX_DONT_SYNC.
extern const uint32_t photodrop_STATX_BASIC_STATS;
extern const uint32_t photodrop_STATX_BTIME;
extern const int32_t photodrop_AT_EMPTY_PATH;
extern const int32_t photodrop_AT_STATX_DONT_SYNC;
/// pthread_setname_np(pthread_self(), name): names the calling thread (15 bytes are kept). 0, or an error number.
int photodrop_set_thread_name(const char *name);
/// statx(2): 0, or -1 and errno on failure.
int photodrop_statx(int dirfd, const char *path, int flags, uint32_t mask, photodrop_statx_result *result);
/// sendmsg(2) of `length` bytes on a unix socket with one descriptor attached (SCM_RIGHTS) when `descriptor` >= 0,
/// MSG_NOSIGNAL. Bytes sent, or -1 and errno.
long photodrop_send_with_descriptor(int socket, const void *bytes, unsigned long length, int descriptor);
/// recvmsg(2) of up to `length` bytes; a descriptor that came with them is stored in `*descriptor` (close-on-exec),
/// else -1 (extra descriptors are closed). Bytes received (0 at end of stream), or -1 and errno.
long photodrop_receive_with_descriptor(int socket, void *bytes, unsigned long length, int *descriptor);
/// Gives up every capability the process holds (ambient, inheritable, permitted, effective): the render helper, which
/// inherits watch's CAP_CHOWN/CAP_FOWNER/CAP_LEASE under systemd, needs none. 0, or -1 and errno.
int photodrop_drop_capabilities(void);
/// malloc_trim(0): returns the freed memory of every malloc arena to the system. 1 when some was returned.
int photodrop_malloc_trim(void);

/// Adds to a spawn's file actions: close every descriptor from `lowest` up in the child (glibc's
/// posix_spawn_file_actions_addclosefrom_np, 2.34 and later). `actions` is a posix_spawn_file_actions_t. 0, or an errno.
int photodrop_spawn_close_from(void *actions, int lowest);
#endif

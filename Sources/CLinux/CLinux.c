#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "CLinux.h"
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <string.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <malloc.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

const int32_t photodrop_O_NOATIME = O_NOATIME;
const int32_t photodrop_O_PATH = O_PATH;
const int32_t photodrop_O_TMPFILE = O_TMPFILE;
const uint64_t photodrop_RESOLVE_BENEATH = RESOLVE_BENEATH;
const uint64_t photodrop_RESOLVE_NO_SYMLINKS = RESOLVE_NO_SYMLINKS;
const uint64_t photodrop_RESOLVE_NO_MAGICLINKS = RESOLVE_NO_MAGICLINKS;
const uint32_t photodrop_RENAME_NOREPLACE = RENAME_NOREPLACE;
const uint32_t photodrop_RENAME_EXCHANGE = RENAME_EXCHANGE;
const int32_t photodrop_F_SETLEASE = F_SETLEASE;
const unsigned long photodrop_FICLONE = FICLONE;
const int32_t photodrop_SEEK_DATA = SEEK_DATA;
const int32_t photodrop_SEEK_HOLE = SEEK_HOLE;

int photodrop_openat2(int dirfd, const char *path, uint64_t flags, uint64_t mode, uint64_t resolve) {
#ifdef SYS_openat2
    struct open_how how = {.flags = flags, .mode = mode, .resolve = resolve};
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int photodrop_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, uint32_t flags) {
    return renameat2(olddirfd, oldpath, newdirfd, newpath, flags);
}

long photodrop_copy_file_range(int fd_in, int fd_out, unsigned long length) {
    return copy_file_range(fd_in, NULL, fd_out, NULL, length, 0);
}

int photodrop_syncfs(int fd) { return syncfs(fd); }

int photodrop_set_lease(int fd, int type) { return fcntl(fd, F_SETLEASE, type); }

int photodrop_has_effective_capability(int capability) {
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[2] = {{0}};
    if (syscall(SYS_capget, &header, data) != 0) return -1;
    if (capability < 0 || capability >= 64) return 0;
    return (data[capability / 32].effective >> (capability % 32)) & 1u ? 1 : 0;
}

const uint32_t photodrop_STATX_BASIC_STATS = STATX_BASIC_STATS;
const uint32_t photodrop_STATX_BTIME = STATX_BTIME;
const int32_t photodrop_AT_EMPTY_PATH = AT_EMPTY_PATH;
const int32_t photodrop_AT_STATX_DONT_SYNC = AT_STATX_DONT_SYNC;

int photodrop_statx(int dirfd, const char *path, int flags, uint32_t mask, photodrop_statx_result *result) {
    struct statx raw;
    if (statx(dirfd, path, flags, mask, &raw) != 0) return -1;
    result->mask = raw.stx_mask;
    result->mode = raw.stx_mode;
    result->nlink = raw.stx_nlink;
    result->uid = raw.stx_uid;
    result->gid = raw.stx_gid;
    result->ino = raw.stx_ino;
    result->size = raw.stx_size;
    result->blocks = raw.stx_blocks;
    result->attributes = raw.stx_attributes;
    result->dev_major = raw.stx_dev_major;
    result->dev_minor = raw.stx_dev_minor;
    result->birth_sec = raw.stx_btime.tv_sec;
    result->birth_nsec = raw.stx_btime.tv_nsec;
    result->modification_sec = raw.stx_mtime.tv_sec;
    result->modification_nsec = raw.stx_mtime.tv_nsec;
    result->change_sec = raw.stx_ctime.tv_sec;
    result->change_nsec = raw.stx_ctime.tv_nsec;
    return 0;
}

int photodrop_set_thread_name(const char *name) {
    char shortened[16];
    strncpy(shortened, name, sizeof shortened - 1);
    shortened[sizeof shortened - 1] = 0;
    return pthread_setname_np(pthread_self(), shortened);
}

long photodrop_send_with_descriptor(int socket, const void *bytes, unsigned long length, int descriptor) {
    struct iovec vector = {.iov_base = (void *)bytes, .iov_len = length};
    union {
        char buffer[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1};
    if (descriptor >= 0) {
        memset(&control, 0, sizeof control);
        message.msg_control = control.buffer;
        message.msg_controllen = sizeof control.buffer;
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(header), &descriptor, sizeof(int));
    }
    return sendmsg(socket, &message, MSG_NOSIGNAL);
}

long photodrop_receive_with_descriptor(int socket, void *bytes, unsigned long length, int *descriptor) {
    struct iovec vector = {.iov_base = bytes, .iov_len = length};
    union {
        char buffer[CMSG_SPACE(sizeof(int) * 4)];
        struct cmsghdr align;
    } control;
    struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1, .msg_control = control.buffer,
                             .msg_controllen = sizeof control.buffer};
    *descriptor = -1;
    long received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    if (received < 0) return received;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        int *descriptors = (int *)CMSG_DATA(header);
        for (size_t index = 0; index < count; index++) {
            if (*descriptor < 0) *descriptor = descriptors[index]; else close(descriptors[index]);
        }
    }
    return received;
}

int photodrop_drop_capabilities(void) {
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) return -1;
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    return (int)syscall(SYS_capset, &header, data);
}

int photodrop_malloc_trim(void) { return malloc_trim(0); }

#include <sys/vfs.h>

int photodrop_statfs_type(const char *path, unsigned long *type) {
    struct statfs info;
    if (statfs(path, &info) != 0) return -1;
    *type = (unsigned long)info.f_type;
    return 0;
}

int photodrop_spawn_close_from(void *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np((posix_spawn_file_actions_t *)actions, lowest);
}

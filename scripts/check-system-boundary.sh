#!/usr/bin/env bash
# The system boundary, checked on what the compiler made: PhotodropSystem is the only Swift module that may call the C
# library's file-system and process functions. An import rule alone proves nothing (on Linux `import Foundation`
# re-exports Glibc, and one stray import brings every libc call back), so this reads the undefined symbols of every
# other Swift module's object files (`nm -u`) and fails on any call below.
#
#   scripts/check-system-boundary.sh [BUILD_DIR]    (default: .build/debug; build first)
#
# It also checks itself: PhotodropSystem's own objects must show such calls, or the check would pass on nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-.build/debug}"

# The calls no module but PhotodropSystem may make: files and folders, descriptors, locks, sockets, inotify, processes
# and signals. (Memory, strings and maths are not the system boundary's business.)
forbidden='^(open|open64|openat|openat64|openat2|creat|creat64|close|close_range|dup|dup2|dup3|read|write|pread|pread64|pwrite|pwrite64|readv|writev|lseek|lseek64|stat|stat64|lstat|lstat64|fstat|fstat64|fstatat|fstatat64|statx|statfs|statfs64|fstatfs|fstatfs64|statvfs|fstatvfs|__xstat|__lxstat|__fxstat|__fxstatat|access|faccessat|rename|renameat|renameat2|link|linkat|symlink|symlinkat|readlink|readlinkat|unlink|unlinkat|mkdir|mkdirat|rmdir|chmod|fchmod|fchmodat|chown|fchown|fchownat|lchown|truncate|ftruncate|ftruncate64|utimensat|futimens|fsync|fdatasync|syncfs|sync_file_range|flock|fcntl|fcntl64|posix_fadvise|posix_fadvise64|fallocate|copy_file_range|sendfile|ioctl|opendir|fdopendir|readdir|readdir64|closedir|getdents64|realpath|getcwd|chdir|fchdir|socket|socketpair|bind|listen|accept|accept4|connect|shutdown|send|sendto|sendmsg|recv|recvfrom|recvmsg|setsockopt|getsockopt|poll|ppoll|select|epoll_create|epoll_create1|epoll_ctl|epoll_wait|eventfd|pipe|pipe2|inotify_init|inotify_init1|inotify_add_watch|inotify_rm_watch|fork|vfork|execv|execve|execvp|execvpe|execl|execlp|execle|posix_spawn|posix_spawnp|waitpid|wait4|kill|raise|signal|sigaction|pthread_create|nanosleep|usleep|sleep|setrlimit|getrlimit|setpriority|nice|fnmatch|getpwuid|getgrnam_r|gethostname|mmap|mmap64|munmap)$'

if ! command -v nm >/dev/null 2>&1; then
    echo "check-system-boundary: nm is missing (Debian: binutils)" >&2
    exit 2
fi
if [ ! -d "$build/PhotodropSystem.build" ]; then
    echo "check-system-boundary: no build in $build (run swift build first)" >&2
    exit 2
fi

objects_of() {  # the objects in build folder $1 of the module whose sources are in $2 (none left from removed files)
    find "$2" -name '*.swift' -printf '%f\n' | while read -r name; do
        [ -f "$1/$name.o" ] && echo "$1/$name.o"
    done
    return 0
}

calls() {  # the forbidden calls among the undefined symbols of objects $@
    [ "$#" -gt 0 ] || return 0
    nm -u "$@" 2>/dev/null | awk 'NF >= 2 {print $NF}' | sed 's/@.*//' | sort -u | grep -E "$forbidden" || true
}

mapfile -t own < <(objects_of "$build/PhotodropSystem.build" Sources/PhotodropSystem)
control="$(calls "${own[@]}")"
if [ -z "$control" ]; then
    echo "check-system-boundary: found no system call in PhotodropSystem's own objects; the check cannot see them" >&2
    exit 2
fi

# Every other Swift module's objects, read by one nm (-A names the object on each line).
checked=0
objects=()
for source in Sources/*/; do
    module="$(basename "$source")"
    [ "$module" = PhotodropSystem ] && continue
    # Swift modules only: the C targets (CLinux's shims, the codec loaders) are C, where dlopen and syscalls belong.
    find "$source" -maxdepth 3 -name '*.swift' | grep -q . || continue
    [ -d "$build/$module.build" ] || continue
    mapfile -t found < <(objects_of "$build/$module.build" "$source")
    [ "${#found[@]}" -gt 0 ] || continue
    checked=$((checked + 1))
    objects+=("${found[@]}")
done
violations="$(nm -u -A "${objects[@]}" 2>/dev/null | awk '{sub(/:$/, "", $1); sym = $NF; sub(/@.*/, "", sym); print $1, sym}' \
    | grep -E " ${forbidden#^}" | sort -u || true)"
status=0
if [ -n "$violations" ]; then
    status=1
    while read -r object symbol; do
        module="$(basename "$(dirname "$object")" .build)"
        echo "check-system-boundary: $(basename "${object%.o}") in $module calls the C library directly: $symbol" \
            "(go through PhotodropSystem)" >&2
    done <<< "$violations"
fi
if [ "$checked" -lt 10 ]; then
    echo "check-system-boundary: only $checked modules found in $build; is it a complete build?" >&2
    exit 2
fi
[ "$status" -eq 0 ] && echo "check-system-boundary: $checked modules call the system through PhotodropSystem only"
exit "$status"

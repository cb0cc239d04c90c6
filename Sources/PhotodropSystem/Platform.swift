// PhotodropSystem is photodrop's one boundary to the operating system: only its files import Glibc and the CLinux
// shims, and it re-exports neither. Every other module reaches the system through its typed wrappers
// (``FileDescriptor``, ``Directory``, ``FileSystem``, ``Errno``, ``SystemThread`` …), whose calls retry `EINTR` in one
// place and fail with a ``SystemError`` that names the call and the path. `scripts/check-system-boundary.sh` reads the
// compiled objects of every other module and fails on a libc file-system or process call. photodrop runs on Debian's
// glibc only.
#if canImport(Glibc)
    import Glibc
#else
    #error("photodrop runs on Linux with glibc only")
#endif

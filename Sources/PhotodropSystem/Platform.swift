// The one file that names the C library. Every other module imports PhotodropSystem and reaches libc through it, the
// way swift-system's Internals/Exports.swift does; Linux calls and constants that Swift's Glibc module leaves out
// come from the CLinux target and are given their C names in Linux.swift. photodrop runs on Debian's glibc only.
#if canImport(Glibc)
    @_exported import Glibc
#else
    #error("photodrop runs on Linux with glibc only")
#endif

/// libc's functions by a name that a type's own method of the same name (`close()`, `write(_:)`) cannot shadow.
public enum LibC {
    @inlinable @discardableResult
    public static func close(_ descriptor: Int32) -> Int32 { Glibc.close(descriptor) }

    @inlinable
    public static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        Glibc.open(path, flags, mode)
    }

    @inlinable
    public static func open(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        Glibc.open(path, flags, mode)
    }

    @inlinable
    public static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        Glibc.read(descriptor, buffer, count)
    }

    @inlinable
    public static func write(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        Glibc.write(descriptor, buffer, count)
    }

    @inlinable @discardableResult
    public static func unlink(_ path: String) -> Int32 { Glibc.unlink(path) }

    @inlinable @discardableResult
    public static func signal(_ number: Int32, _ handler: __sighandler_t?) -> __sighandler_t? {
        Glibc.signal(number, handler)
    }

    /// The calling thread's `errno`.
    @inlinable
    public static var errno: Int32 { Glibc.errno }
}

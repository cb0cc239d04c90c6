// The one file that names the C library. Every other module imports PhotodropSystem and reaches libc through it, the
// way swift-system's Internals/Exports.swift does; Linux calls and constants that Swift's Glibc module leaves out
// come from the CLinux target and are given their C names in Linux.swift.
#if canImport(Glibc)
    @_exported import Glibc
#elseif canImport(Musl)
    @_exported import Musl
#else
    #error("photodrop runs on Linux only")
#endif

/// libc's functions by a name that a type's own method of the same name (`close()`, `write(_:)`) cannot shadow.
public enum LibC {
    @inlinable @discardableResult
    public static func close(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
            Glibc.close(descriptor)
        #else
            Musl.close(descriptor)
        #endif
    }

    @inlinable
    public static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        #if canImport(Glibc)
            Glibc.open(path, flags, mode)
        #else
            Musl.open(path, flags, mode)
        #endif
    }

    @inlinable
    public static func open(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        #if canImport(Glibc)
            Glibc.open(path, flags, mode)
        #else
            Musl.open(path, flags, mode)
        #endif
    }

    @inlinable
    public static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.read(descriptor, buffer, count)
        #else
            Musl.read(descriptor, buffer, count)
        #endif
    }

    @inlinable
    public static func write(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(descriptor, buffer, count)
        #else
            Musl.write(descriptor, buffer, count)
        #endif
    }

    @inlinable @discardableResult
    public static func unlink(_ path: String) -> Int32 {
        #if canImport(Glibc)
            Glibc.unlink(path)
        #else
            Musl.unlink(path)
        #endif
    }

    @inlinable @discardableResult
    public static func signal(_ number: Int32, _ handler: __sighandler_t?) -> __sighandler_t? {
        #if canImport(Glibc)
            Glibc.signal(number, handler)
        #else
            Musl.signal(number, handler)
        #endif
    }

    /// The calling thread's `errno`.
    @inlinable
    public static var errno: Int32 {
        #if canImport(Glibc)
            Glibc.errno
        #else
            Musl.errno
        #endif
    }
}

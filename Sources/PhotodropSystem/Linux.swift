import Glibc
import CLinux

// Linux system calls and constants that glibc declares only under _GNU_SOURCE (or not at all), by their C names, so
// that no module above this one needs CLinux, `dlsym` or a hard-coded number. CLinux is compiled with _GNU_SOURCE.

/// `SEEK_DATA`: the next offset holding data, for files with holes.
var SEEK_DATA: Int32 { photodrop_SEEK_DATA }
/// `SEEK_HOLE`: the next hole.
var SEEK_HOLE: Int32 { photodrop_SEEK_HOLE }
/// `RENAME_NOREPLACE` for ``renameat2(_:_:_:_:_:)``.
var RENAME_NOREPLACE: UInt32 { photodrop_RENAME_NOREPLACE }
/// `RENAME_EXCHANGE` for ``renameat2(_:_:_:_:_:)``.
var RENAME_EXCHANGE: UInt32 { photodrop_RENAME_EXCHANGE }

/// `renameat2(2)`: -1 and `errno` on failure.
func renameat2(
    _ oldDirectory: Int32, _ oldPath: String, _ newDirectory: Int32, _ newPath: String, _ flags: UInt32
) -> Int32 {
    photodrop_renameat2(oldDirectory, oldPath, newDirectory, newPath, flags)
}

/// Names the calling thread (`pthread_setname_np`; Linux keeps the first 15 bytes), as `top -H`, `ps -L` and
/// `/proc/<pid>/task/<tid>/comm` show it. A new thread otherwise inherits the name of the thread that made it.
func setCurrentThreadName(_ name: String) {
    _ = photodrop_set_thread_name(name)
}

/// Gives up every capability of the process (ambient, inheritable, permitted, effective), for good: 0, or -1 and
/// `errno`.
@discardableResult
public func dropAllCapabilities() -> Int32 { photodrop_drop_capabilities() }

/// `malloc_trim(0)`: hands the memory freed in every malloc arena back to the system; whether some was returned.
@discardableResult
public func trimHeap() -> Bool { photodrop_malloc_trim() == 1 }

/// sendmsg(2) of `bytes` on a unix socket, with `descriptor` attached (SCM_RIGHTS) when it is 0 or more; never raises
/// SIGPIPE. Bytes sent, or -1 with `errno` set.
func sendWithDescriptor(_ socket: Int32, _ bytes: UnsafeRawBufferPointer, descriptor: Int32) -> Int {
    photodrop_send_with_descriptor(socket, bytes.baseAddress, UInt(bytes.count), descriptor)
}

/// recvmsg(2) of up to `bytes.count` bytes; a descriptor that came with them (close-on-exec) is stored in
/// `descriptor`, else -1. Bytes received (0 at the end of the stream), or -1 with `errno` set.
func receiveWithDescriptor(_ socket: Int32, into bytes: UnsafeMutableRawBufferPointer, descriptor: inout Int32)
    -> Int
{
    photodrop_receive_with_descriptor(socket, bytes.baseAddress, UInt(bytes.count), &descriptor)
}

import CLinux
import Glibc

extension FileDescriptor {
    /// A connected pair of unix stream sockets (close-on-exec).
    public static func socketPair() throws(SystemError) -> (FileDescriptor, FileDescriptor) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw SystemError.current("socketpair")
        }
        return (FileDescriptor(owning: pair[0]), FileDescriptor(owning: pair[1]))
    }

    /// Waits until the descriptor can be read (or its peer hung up) or `milliseconds` pass (-1: forever); whether
    /// it can. `poll(2)`, resumed after a signal with the whole time again.
    public func waitUntilReadable(milliseconds: Int32) throws(SystemError) -> Bool {
        var poller = pollfd(fd: rawValue, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&poller, 1, milliseconds)
            if ready >= 0 { return ready > 0 }
            if errno != EINTR { throw SystemError.current("poll") }
        }
    }

    /// `sendmsg(2)` of `bytes` on a unix socket, with `attached` travelling along (SCM_RIGHTS); never raises
    /// SIGPIPE. The bytes sent.
    public func send(_ bytes: UnsafeRawBufferPointer, attaching attached: FileDescriptor?) throws(SystemError) -> Int {
        while true {
            let sent = photodrop_send_with_descriptor(
                rawValue, bytes.baseAddress, UInt(bytes.count), attached?.rawValue ?? -1)
            if sent >= 0 { return sent }
            if errno != EINTR { throw SystemError.current("sendmsg") }
        }
    }

    /// `recvmsg(2)` of up to `bytes.count` bytes (0 at the end of the stream), and the descriptor that came with
    /// them, if any (close-on-exec, owned by the caller).
    public func receive(into bytes: UnsafeMutableRawBufferPointer) throws(SystemError)
        -> (count: Int, descriptor: FileDescriptor?)
    {
        while true {
            var received: Int32 = -1
            let got = photodrop_receive_with_descriptor(rawValue, bytes.baseAddress, UInt(bytes.count), &received)
            let attached = received >= 0 ? FileDescriptor(owning: received) : nil
            if got >= 0 { return (got, attached) }
            if errno != EINTR && errno != EAGAIN { throw SystemError.current("recvmsg") }
        }
    }
}

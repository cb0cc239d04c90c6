import Glibc

/// A socket another library owns (libmicrohttpd's connections), looked at and shut down by its number, never
/// closed here.
public enum ForeignSocket {
    /// For each socket, whether its peer has gone (hung up, or the socket failed): one `poll(2)` over all of them,
    /// without waiting.
    public static func peersGone(_ sockets: [Int32]) -> [Bool] {
        let readHangUp: Int16 = 0x2000  // POLLRDHUP, which glibc declares only under _GNU_SOURCE
        var polled = sockets.map { pollfd(fd: $0, events: readHangUp, revents: 0) }
        _ = poll(&polled, nfds_t(polled.count), 0)
        return polled.map { $0.revents & (readHangUp | Int16(POLLHUP | POLLERR | POLLNVAL)) != 0 }
    }

    /// Shuts the socket down both ways (`shutdown(SHUT_RDWR)`): its owner sees the connection end and closes it.
    public static func shutDown(_ socket: Int32) {
        _ = Glibc.shutdown(socket, Int32(SHUT_RDWR))
    }
}

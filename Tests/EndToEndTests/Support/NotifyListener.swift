import Foundation
import PhotodropSystem
import Synchronization

/// A stand-in for systemd's end of `$NOTIFY_SOCKET`: a real unix datagram socket in a test's folder, read by a thread
/// of its own, every message kept with when it arrived.
final class NotifyListener: Sendable {
    struct Message: Sendable {
        let at: Date
        let assignments: [String]

        func has(_ assignment: String) -> Bool { assignments.contains(assignment) }
        var status: String? {
            assignments.first { $0.hasPrefix("STATUS=") }.map { String($0.dropFirst("STATUS=".count)) }
        }
    }

    let path: String
    private let descriptor: Int32
    private let received = Mutex<[Message]>([])
    private let closed = Atomic(false)

    init(in folder: URL) throws {
        path = folder.appendingPathComponent("notify-\(UInt32.random(in: 0...UInt32.max)).sock").path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw HarnessError("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw HarnessError("bind \(path): errno \(errno)") }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !closed.load(ordering: .relaxed) {
                let count = recv(descriptor, &buffer, buffer.count, 0)
                guard count > 0 else { continue }
                let text = String(decoding: buffer.prefix(count), as: UTF8.self)
                let message = Message(at: Date(), assignments: text.split(separator: "\n").map(String.init))
                received.withLock { $0.append(message) }
            }
            Glibc.close(descriptor)
        }
    }

    /// Stops the reading thread (which holds the listener until then).
    func close() { closed.store(true, ordering: .relaxed) }

    var messages: [Message] { received.withLock { $0 } }

    /// The environment that makes photodrop talk to this socket (and expect a watchdog ping within `watchdog`).
    func environment(watchdog: Duration? = nil) -> [String: String] {
        var environment = ["NOTIFY_SOCKET": path]
        if let watchdog { environment["WATCHDOG_USEC"] = String(Int(watchdog / .microseconds(1))) }
        return environment
    }

    /// Waits up to `timeout` seconds for a message that satisfies `condition`.
    func waitFor(timeout: TimeInterval = 30, _ condition: (Message) -> Bool) async -> Message? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let found = messages.first(where: condition) { return found }
            await pause(20_000)
        }
        return messages.first(where: condition)
    }
}

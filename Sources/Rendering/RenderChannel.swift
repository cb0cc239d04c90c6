import PhotodropSystem
import Foundation

/// Messages between photodrop and its render helper over a connected unix stream socket: a JSON header and binary
/// parts (`u32 header length, u32 part count, header, then each part as u64 length + bytes`, little-endian), with at
/// most one file descriptor attached to a message's first bytes (SCM_RIGHTS).
///
/// Both sides check the lengths against limits before allocating, so a confused or compromised peer cannot make the
/// other allocate without bound.
public struct RenderChannel: Sendable {
    public struct Message: Sendable {
        public var header: Data
        public var parts: [Data]
        /// A descriptor that came with the message (the receiver owns it), or -1.
        public var descriptor: Int32
    }

    public enum Failure: Error, Sendable, Equatable {
        /// The peer closed the socket (it exited, or crashed).
        case closed
        /// Nothing arrived before the deadline.
        case timedOut
        /// The bytes do not follow the protocol.
        case malformed(String)
        /// A system call failed (errno).
        case system(Int32, String)
    }

    static let maximumHeader = 1 << 20
    static let maximumParts = 16
    static let maximumPart = 256 << 20

    public let socket: Int32

    public init(socket: Int32) { self.socket = socket }

    /// Sends a message; `descriptor` (≥ 0) travels with it and stays the caller's.
    public func send(header: Data, parts: [Data] = [], descriptor: Int32 = -1) throws(Failure) {
        guard header.count <= Self.maximumHeader, parts.count <= Self.maximumParts else {
            throw .malformed("a message larger than the protocol allows")
        }
        var prefix = Data()
        append(UInt32(header.count), to: &prefix)
        append(UInt32(parts.count), to: &prefix)
        prefix.append(header)
        var first = true
        func write(_ data: Data) throws(Failure) {
            var offset = 0
            while offset < data.count {
                let sent = data.withUnsafeBytes { raw in
                    sendWithDescriptor(socket, UnsafeRawBufferPointer(rebasing: raw[offset...]), descriptor: first ? descriptor : -1)
                }
                if sent < 0 {
                    if errno == EINTR { continue }
                    if errno == EPIPE || errno == ECONNRESET { throw .closed }
                    throw .system(errno, "sendmsg")
                }
                first = false
                offset += sent
            }
        }
        try write(prefix)
        for part in parts {
            var length = Data()
            append(UInt64(part.count), to: &length)
            try write(length)
            if !part.isEmpty { try write(part) }
        }
    }

    /// Receives one message, waiting at most until `deadline` (nil: forever).
    public func receive(until deadline: ContinuousClock.Instant? = nil) throws(Failure) -> Message {
        var descriptor: Int32 = -1
        do throws(Failure) {
            let counts = try read(8, deadline: deadline, descriptor: &descriptor)
            let headerLength = Int(integer(counts, at: 0, as: UInt32.self))
            let partCount = Int(integer(counts, at: 4, as: UInt32.self))
            guard headerLength <= Self.maximumHeader, partCount <= Self.maximumParts else {
                throw Failure.malformed("a header of \(headerLength) bytes with \(partCount) parts")
            }
            let header = try read(headerLength, deadline: deadline, descriptor: &descriptor)
            var parts: [Data] = []
            for _ in 0..<partCount {
                let length = Int(integer(try read(8, deadline: deadline, descriptor: &descriptor), at: 0, as: UInt64.self))
                guard length <= Self.maximumPart else { throw Failure.malformed("a part of \(length) bytes") }
                parts.append(try read(length, deadline: deadline, descriptor: &descriptor))
            }
            return Message(header: header, parts: parts, descriptor: descriptor)
        } catch {
            if descriptor >= 0 { close(descriptor) }
            throw error
        }
    }

    private func read(_ count: Int, deadline: ContinuousClock.Instant?, descriptor: inout Int32) throws(Failure) -> Data {
        var data = Data(count: count)
        var offset = 0
        while offset < count {
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else { throw .timedOut }
                var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
                let ready = poll(&poller, 1, Int32(clamping: max(1, milliseconds)))
                if ready < 0 {
                    if errno == EINTR { continue }
                    throw .system(errno, "poll")
                }
                if ready == 0 { continue }
            }
            var received: Int32 = -1
            let got = data.withUnsafeMutableBytes { raw in
                receiveWithDescriptor(socket, into: UnsafeMutableRawBufferPointer(rebasing: raw[offset...]), descriptor: &received)
            }
            if received >= 0 {
                if descriptor < 0 { descriptor = received } else { close(received) }
            }
            if got < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                if errno == ECONNRESET { throw .closed }
                throw .system(errno, "recvmsg")
            }
            if got == 0 { throw .closed }
            offset += got
        }
        return data
    }

    private func append<T: FixedWidthInteger>(_ value: T, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }

    private func integer<T: FixedWidthInteger>(_ data: Data, at offset: Int, as: T.Type) -> T {
        var value: T = 0
        withUnsafeMutableBytes(of: &value) { raw in
            data.copyBytes(to: raw.bindMemory(to: UInt8.self), from: offset..<(offset + MemoryLayout<T>.size))
        }
        return T(littleEndian: value)
    }
}

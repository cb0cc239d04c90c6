import PhotodropSystem
import FoundationEssentials

/// Messages between photodrop and its render helper over a connected unix stream socket: a JSON header and binary
/// parts (`u32 header length, u32 part count, header, then each part as u64 length + bytes`, little-endian), with at
/// most one file descriptor attached to a message's first bytes (SCM_RIGHTS).
///
/// Both sides check the lengths against limits before allocating, so a confused or compromised peer cannot make the
/// other allocate without bound.
struct RenderChannel: Sendable {
    public struct Message: Sendable {
        public var header: Data
        public var parts: [Data]
        /// A descriptor that came with the message, if any (the receiver owns it).
        public var descriptor: FileDescriptor?
    }

    public enum Failure: Error, Sendable, Equatable {
        /// The peer closed the socket (it exited, or crashed).
        case closed
        /// Nothing arrived before the deadline.
        case timedOut
        /// The bytes do not follow the protocol.
        case malformed(String)
        /// A system call failed.
        case system(SystemError)
    }

    static let maximumHeader = 1 << 20
    static let maximumParts = 16
    static let maximumPart = 256 << 20

    public let socket: FileDescriptor

    public init(socket: FileDescriptor) { self.socket = socket }

    /// Sends a message; `descriptor` travels with it and stays the caller's.
    public func send(header: Data, parts: [Data] = [], descriptor: FileDescriptor? = nil) throws(Failure) {
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
                let attached = first ? descriptor : nil
                let result: Result<Int, SystemError> = data.withUnsafeBytes { raw in
                    Result { () throws(SystemError) in
                        try socket.send(UnsafeRawBufferPointer(rebasing: raw[offset...]), attaching: attached)
                    }
                }
                let sent: Int
                switch result {
                case .success(let count): sent = count
                case .failure(let error):
                    if error.code == Errno.brokenPipe || error.code == Errno.connectionReset { throw .closed }
                    throw .system(error)
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
        var descriptor: FileDescriptor?
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
    }

    private func read(_ count: Int, deadline: ContinuousClock.Instant?, descriptor: inout FileDescriptor?) throws(Failure)
        -> Data
    {
        var data = Data(count: count)
        var offset = 0
        while offset < count {
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else { throw .timedOut }
                let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
                do throws(SystemError) {
                    guard try socket.waitUntilReadable(milliseconds: Int32(clamping: max(1, milliseconds))) else {
                        continue
                    }
                } catch {
                    throw .system(error)
                }
            }
            let result: Result<(count: Int, descriptor: FileDescriptor?), SystemError> = data.withUnsafeMutableBytes {
                raw in
                Result { () throws(SystemError) in
                    try socket.receive(into: UnsafeMutableRawBufferPointer(rebasing: raw[offset...]))
                }
            }
            let got: Int
            switch result {
            case .success(let received):
                got = received.count
                // A second descriptor in one message is closed as it goes.
                if descriptor == nil { descriptor = received.descriptor }
            case .failure(let error):
                if error.code == Errno.connectionReset { throw .closed }
                throw .system(error)
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

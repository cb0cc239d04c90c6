import FoundationEssentials
import PhotodropSystem

/// The placement intents of a writer session's current block, in a file of its own:
/// `Library/locks/<session>.intents`, beside the session's lock.
///
/// A block's intents must be durable before its first file moves, and the block's rows must not wait for them: the
/// placement thread writes this log (one `pwrite`, one `fdatasync`) and then places the files, while the writer
/// inserts the rows. Placement intents used to be rows written in a transaction of their own and deleted in the
/// block's; that cost the writer, the pipeline's critical path, about a tenth of its time on W1.
///
/// The file holds one record, the latest block's, and each block overwrites it: by the time a block starts, every
/// earlier one has committed (its intents are settled: every destination is referenced) or was undone (intents whose
/// files could not be put back were copied into the `placement_intents` table first). Recovery reads the log of a
/// dead session like intent rows (``WriterConnection/reconcileIntents()``) and then removes it; a record that does not
/// check out (a write torn by a crash) is ignored, which is safe because no file of its block had moved yet.
///
/// Record: "PDI2", batch (Int64), entry count (UInt32), payload length (UInt32), FNV-1a-64 of those three fields and
/// the payload (UInt64), then per entry: action (UInt8), method (UInt8), inode (UInt64, `UInt64.max` for none),
/// the source folder's device and inode (UInt64 each, `UInt64.max` for none), source length (UInt32, `UInt32.max`
/// for none) and bytes, destination length (UInt32) and bytes. All integers little-endian. "PDI1" records (photodrop
/// before the source folder was recorded) lack the two folder fields and are still read.
struct IntentLog {
    /// One intent, as ``WriterConnection`` records it.
    struct Entry: Equatable {
        var action: PlacementIntent.Action
        var method: PlacementIntent.Method
        var source: String?
        var inode: UInt64?
        var destination: String
        /// The folder the source was taken from: recovery puts a file back only into that very folder.
        var sourceFolder: FileNode? = nil
    }

    static let fileExtension = ".intents"
    private static let magic: [UInt8] = Array("PDI2".utf8)
    private static let firstMagic: [UInt8] = Array("PDI1".utf8)
    private static let headerSize = 28

    /// The log of `session` in `locksDirectory`.
    static func path(session: String, locksDirectory: String) -> String {
        locksDirectory + "/" + session + fileExtension
    }

    /// Where a copy of the log is kept when the intents of a failed undo could not go into the database.
    static func keptPath(session: String, batch: Int64, locksDirectory: String) -> String {
        locksDirectory + "/" + session + ".\(batch)" + fileExtension
    }

    /// Every log in `locksDirectory` (``path(session:locksDirectory:)`` and ``keptPath(session:batch:locksDirectory:)``
    /// files), with the session that wrote it, in name order.
    static func logs(in locksDirectory: String) -> [(session: String, path: String)] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: locksDirectory) else { return [] }
        return names.sorted().filter { $0.hasSuffix(fileExtension) }.map { name in
            (String(name.prefix { $0 != "." }), locksDirectory + "/" + name)
        }
    }

    /// The record's bytes.
    static func encode(_ entries: [Entry], batch: Int64) -> [UInt8] {
        var payload: [UInt8] = []
        payload.reserveCapacity(entries.count * 128)
        for entry in entries {
            payload.append(UInt8(entry.action.rawValue))
            payload.append(UInt8(entry.method.rawValue))
            append(entry.inode ?? UInt64.max, to: &payload)
            append(entry.sourceFolder?.device ?? UInt64.max, to: &payload)
            append(entry.sourceFolder?.inode ?? UInt64.max, to: &payload)
            if let source = entry.source {
                append(UInt32(source.utf8.count), to: &payload)
                payload.append(contentsOf: source.utf8)
            } else {
                append(UInt32.max, to: &payload)
            }
            append(UInt32(entry.destination.utf8.count), to: &payload)
            payload.append(contentsOf: entry.destination.utf8)
        }
        var record = magic
        record.reserveCapacity(headerSize + payload.count)
        append(UInt64(bitPattern: batch), to: &record)
        append(UInt32(entries.count), to: &record)
        append(UInt32(payload.count), to: &record)
        append(checksum(Array(record[4..<20]) + payload), to: &record)
        record.append(contentsOf: payload)
        return record
    }

    /// The record in `bytes`, or nil when there is none or it does not check out.
    static func decode(_ bytes: [UInt8]) -> (batch: Int64, entries: [Entry])? {
        guard bytes.count >= headerSize else { return nil }
        let version = Array(bytes[0..<4])
        guard version == magic || version == firstMagic else { return nil }
        let hasFolders = version == magic
        var reader = Reader(bytes: bytes, offset: 4)
        guard let batch = reader.u64(), let count = reader.u32(), let length = reader.u32(), let sum = reader.u64(),
            bytes.count - headerSize >= Int(length)
        else { return nil }
        let payload = Array(bytes[headerSize..<headerSize + Int(length)])
        guard checksum(Array(bytes[4..<20]) + payload) == sum else { return nil }
        var entries: [Entry] = []
        var entryReader = Reader(bytes: payload, offset: 0)
        for _ in 0..<count {
            guard let actionByte = entryReader.u8(), let action = PlacementIntent.Action(rawValue: Int(actionByte)),
                let methodByte = entryReader.u8(), let method = PlacementIntent.Method(rawValue: Int(methodByte)),
                let inode = entryReader.u64()
            else { return nil }
            var folder: FileNode?
            if hasFolders {
                guard let device = entryReader.u64(), let folderInode = entryReader.u64() else { return nil }
                if device != UInt64.max || folderInode != UInt64.max {
                    folder = FileNode(device: device, inode: folderInode)
                }
            }
            guard let sourceLength = entryReader.u32() else { return nil }
            var source: String?
            if sourceLength != UInt32.max {
                guard let text = entryReader.string(Int(sourceLength)) else { return nil }
                source = text
            }
            guard let destinationLength = entryReader.u32(),
                let destination = entryReader.string(Int(destinationLength))
            else { return nil }
            entries.append(
                Entry(
                    action: action, method: method, source: source, inode: inode == UInt64.max ? nil : inode,
                    destination: destination, sourceFolder: folder))
        }
        guard entryReader.offset == payload.count else { return nil }
        return (Int64(bitPattern: batch), entries)
    }

    /// Makes `entries` the log's only record, durably: written over the previous one, the file cut to its length,
    /// then `fdatasync`.
    static func write(_ entries: [Entry], batch: Int64, to descriptor: FileDescriptor, path: String) throws {
        let record = encode(entries, batch: batch)
        try record.withUnsafeBytes { raw in try descriptor.writeAll(raw, at: 0, path: path) }
        try descriptor.truncate(to: Int64(record.count), path: path)
        try descriptor.syncData(path: path)
    }

    /// The record of the log at `path`, or nil when the file is missing, empty or torn.
    static func read(path: String) -> (batch: Int64, entries: [Entry])? {
        guard let descriptor = try? FileSystem.open(path, .readOnly) else { return nil }
        return read(descriptor: descriptor)
    }

    /// The record of an open log, or nil when it is empty or torn.
    static func read(descriptor: FileDescriptor) -> (batch: Int64, entries: [Entry])? {
        guard let info = try? descriptor.status(), info.size >= headerSize, info.size < 1 << 30 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.size))
        let count = bytes.withUnsafeMutableBytes { try? descriptor.readFully(into: $0, at: 0) }
        guard count == bytes.count else { return nil }
        return decode(bytes)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private static func checksum(_ bytes: [UInt8]) -> UInt64 {
        var hash = FNV1a64()
        hash.add(bytes)
        return hash.value
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset: Int

        mutating func u8() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func u32() -> UInt32? { integer() }
        mutating func u64() -> UInt64? { integer() }

        private mutating func integer<T: FixedWidthInteger>() -> T? {
            let size = MemoryLayout<T>.size
            guard bytes.count - offset >= size else { return nil }
            var value: T = 0
            for index in 0..<size { value |= T(bytes[offset + index]) << (8 * index) }
            offset += size
            return value
        }

        mutating func string(_ length: Int) -> String? {
            guard length >= 0, bytes.count - offset >= length else { return nil }
            defer { offset += length }
            return String(validating: bytes[offset..<offset + length], as: UTF8.self)
        }
    }
}

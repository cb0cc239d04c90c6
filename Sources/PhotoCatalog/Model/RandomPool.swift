import PhotodropSystem
import Synchronization

/// Random bytes from the kernel's generator, fetched 4 KiB at a time.
///
/// A batch import draws a UUID per file; glibc 2.36 (Debian 12) implements `arc4random_buf` as one `getrandom` system
/// call per request, which a 10,000-file import noticed. Each byte is handed out once.
final class RandomPool: Sendable {
    static let shared = RandomPool()

    private struct State {
        var bytes = [UInt8](repeating: 0, count: RandomPool.poolSize)
        /// How many bytes from the start have been handed out (the pool starts empty).
        var used = RandomPool.poolSize
    }

    private static let poolSize = 4096
    private let state = Mutex(State())

    /// Fills `buffer` with random bytes (at most 4 KiB per call).
    func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count <= RandomPool.poolSize, "ask for at most 4 KiB at once")
        state.withLock { state in
            if state.used + buffer.count > RandomPool.poolSize {
                state.bytes.withUnsafeMutableBytes { SystemRandom.fill($0) }
                state.used = 0
            }
            state.bytes.withUnsafeBytes { pool in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: pool[state.used..<state.used + buffer.count]))
            }
            state.used += buffer.count  // each byte is handed out once
        }
    }
}

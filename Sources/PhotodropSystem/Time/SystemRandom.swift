import Glibc

/// The kernel's random numbers.
public enum SystemRandom {
    /// Fills `buffer` with random bytes from the kernel (`getrandom`, through glibc's `arc4random_buf`).
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        arc4random_buf(base, buffer.count)
    }
}

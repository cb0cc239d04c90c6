/// A request body taken piece by piece as it arrives (an upload) instead of collected in memory. One connection's
/// thread calls it: ``receive(_:)`` per piece, then ``finish()`` once the body is complete, or ``abandon()`` when the
/// connection ends first.
public protocol BodyReceiver: AnyObject {
    /// A piece of the body; a response refuses the rest (it is sent at once, and the connection closed).
    func receive(_ bytes: UnsafeRawBufferPointer) -> HTTPResponse?
    /// The whole body arrived: the answer.
    func finish() -> HTTPResponse
    /// The connection ended before the body did (or a refusal was sent): nothing of it may stay.
    func abandon()
}

/// What the server does with a request's body, decided from its headers (``HTTPServer``).
public enum BodyHandling {
    /// Collected in memory, up to ``HTTPServer/maximumBodyBytes``, for the handler.
    case collect
    /// Handed to a receiver as it arrives.
    case stream(any BodyReceiver)
    /// Refused before a byte of it is read.
    case refuse(HTTPResponse)
}

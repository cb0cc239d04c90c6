/// A request body taken piece by piece as it arrives (an upload) instead of collected in memory. Called by one thread
/// at a time: ``receive(_:)`` per piece on the connection's thread, then ``finish()`` on a worker once the body is
/// complete (the connection suspended meanwhile), or ``abandon()`` when the connection ends first.
protocol BodyReceiver: AnyObject, Sendable {
    /// A piece of the body; a response refuses the rest (it is sent at once, and the connection closed).
    func receive(_ bytes: UnsafeRawBufferPointer) -> HTTPResponse?
    /// The whole body arrived: the answer.
    func finish() -> HTTPResponse
    /// The connection ended before the body did (or a refusal was sent): nothing of it may stay.
    func abandon()
}

/// What the server does with a request's body, decided from its headers (``HTTPServer``).
enum BodyHandling {
    /// Collected in memory, up to ``HTTPServer/maximumBodyBytes``, for the handler.
    case collect
    /// Handed to a receiver as it arrives.
    case stream(any BodyReceiver)
    /// Refused before a byte of it is read.
    case refuse(HTTPResponse)
}

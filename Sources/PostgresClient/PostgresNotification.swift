/// A `NOTIFY` the server delivered to a connection that `LISTEN`s on its channel.
public struct PostgresNotification: Sendable, Hashable {
    /// The channel it was sent on.
    public var channel: String
    /// Its payload ("" when none).
    public var payload: String
    /// The server process that sent it (the sending connection's backend).
    public var sender: Int32

    public init(channel: String, payload: String, sender: Int32) {
        self.channel = channel
        self.payload = payload
        self.sender = sender
    }
}

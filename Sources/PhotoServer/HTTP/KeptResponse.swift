import CMicroHTTPD
import PhotoImageManager

/// An answer made once and sent to many requests as it is: the status, headers and body of a small picture, kept in
/// libmicrohttpd's own form, so that sending it again costs neither a file open nor a header's formatting.
/// libmicrohttpd counts the connections sending it: one released while they do stays alive until they are done.
final class KeptResponse: KeptPicture, @unchecked Sendable {
    // @unchecked: `pointer` never changes; libmicrohttpd's response locks its own count of users.
    let pointer: UnsafeMutableRawPointer
    public let status: Int
    /// Bytes of the body (the memory it takes, near enough).
    public let byteCount: Int

    /// Nil when libmicrohttpd is not loaded yet or refuses the headers.
    public init?(status: Int, headers: [(String, String)], body: [UInt8]) {
        let text = HTTPResponse.headerLines(headers)
        guard let made = body.withUnsafeBytes({ pd_http_kept_response($0.baseAddress, $0.count, text) }) else {
            return nil
        }
        pointer = made
        self.status = status
        byteCount = body.count
    }

    deinit { pd_http_kept_response_free(pointer) }
}

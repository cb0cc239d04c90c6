import CMicroHTTPD

/// The checks on a request's headers that libmicrohttpd does not make, each answered with a status of our own
/// (libmicrohttpd's own error pages cannot carry the headers every answer has):
///
/// - Framing that two servers could read differently, the ground of request smuggling through a lax proxy: two
///   `Content-Length` headers, `Content-Length` beside `Transfer-Encoding`, a `Transfer-Encoding` other than one
///   `chunked`, two `Host` headers, a control character in a header's value (400).
/// - Size: headers past ``HTTPServer/Options/headerBytes`` or more query arguments than
///   ``HTTPServer/Options/maximumArguments`` (431); a target past ``HTTPServer/Options/targetBytes`` (414).
struct RequestCensus {
    let census: pd_http_census
    let pathBytes: Int
    let options: HTTPServer.Options
    let transferEncoding: String?

    init(_ census: pd_http_census, path: String, transferEncoding: String?, options: HTTPServer.Options) {
        self.census = census
        self.pathBytes = path.utf8.count
        self.transferEncoding = transferEncoding
        self.options = options
    }

    /// The answer for a request that fails a check, or nil.
    var refusal: HTTPResponse? {
        if census.content_lengths > 1 {
            return .error(400, "the request has more than one Content-Length header")
        }
        if census.transfer_encodings > 0 && census.content_lengths > 0 {
            return .error(400, "the request has both Content-Length and Transfer-Encoding")
        }
        if census.transfer_encodings > 1 || (census.transfer_encodings == 1 && transferEncoding?.lowercased() != "chunked") {
            return .error(400, "the only Transfer-Encoding accepted is one 'chunked'")
        }
        if census.hosts > 1 {
            return .error(400, "the request has more than one Host header")
        }
        if census.control_characters > 0 {
            return .error(400, "a header's value holds a control character")
        }
        if census.header_bytes > options.headerBytes {
            return .error(431, "the request's headers are larger than \(options.headerBytes) bytes")
        }
        if Int(census.arguments) > options.maximumArguments {
            return .error(431, "the request has more than \(options.maximumArguments) query arguments")
        }
        if pathBytes + census.argument_bytes > options.targetBytes {
            return .error(414, "the request's address is longer than \(options.targetBytes) bytes")
        }
        return nil
    }
}
